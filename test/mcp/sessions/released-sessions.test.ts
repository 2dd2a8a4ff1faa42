// What a released session's id answers: its reason to the caller that held
// it only, and the memory of released ids stays bounded.
import { ReleasedSessions, releaseReason } from '../../../src/mcp/sessions/released-sessions.js';

test('the reason goes to the caller that held the id, to nobody else', () => {
  const released = new ReleasedSessions();
  released.remember('id-1', 'alice', 'it was idle');
  expect(released.reasonFor('id-1', 'alice')).toBe('it was idle');
  expect(released.reasonFor('id-1', 'bob')).toBeUndefined();
  expect(released.reasonFor('id-1', undefined)).toBeUndefined();
  expect(released.reasonFor('id-2', 'alice')).toBeUndefined();
});

test('at most 1024 ids are remembered, the oldest forgotten first', () => {
  const released = new ReleasedSessions();
  for (let i = 0; i <= 1024; i++) released.remember(`id-${i}`, 'a', `r${i}`);
  expect(released.reasonFor('id-0', 'a')).toBeUndefined();
  expect(released.reasonFor('id-1', 'a')).toBe('r1');
  expect(released.reasonFor('id-1024', 'a')).toBe('r1024');
});

test('the reasons name the setting that released the session', () => {
  const caps = { maxSessions: 8, maxSessionsPerCaller: 2 };
  expect(releaseReason({ kind: 'idle', idleMs: 1_800_000 }, caps)).toBe('it was released after 1800 s without a request (--idle-timeout)');
  expect(releaseReason({ kind: 'idle', idleMs: 1500 }, caps)).toBe('it was released after 1.5 s without a request (--idle-timeout)');
  expect(releaseReason({ kind: 'evicted', cap: 'server' }, caps)).toBe('it was idle and released to make room for a new session (--max-sessions 8)');
  expect(releaseReason({ kind: 'evicted', cap: 'caller' }, caps)).toBe('it was idle and released to make room for a new session (--max-sessions-per-caller 2)');
});
