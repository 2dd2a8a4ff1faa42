import { parseHeartbeatInterval } from '../../src/cli/heartbeat-option.js';

test('--heartbeat-interval takes seconds (fractions for tests, 0 for none) and refuses anything else clearly', () => {
  expect(parseHeartbeatInterval('15')).toBe(15_000);
  expect(parseHeartbeatInterval('0.3')).toBe(300);
  expect(parseHeartbeatInterval('0')).toBe(0);
  for (const bad of ['', ' ', 'abc', '-1', '3601', 'Infinity']) {
    expect(() => parseHeartbeatInterval(bad)).toThrow('expected seconds: a number from 0 (no heartbeat) to 3600');
  }
});
