// How the host's tag reaper and the namespace reaper's report add up to one leftover count (namespace-reaper.ts).
import { leftoverCount } from '../../../../src/providers/exec/process/namespace-reaper.js';

describe('leftoverCount', () => {
  it('takes the host count alone when there is no namespace report (no PID namespace, or a garbled report)', () => {
    expect(leftoverCount(3, undefined, false)).toBe(3);
    expect(leftoverCount(0, undefined, false)).toBe(0);
  });

  it('never adds the two: the host reaper finds the namespace reaper\'s dying processes again (a loaded CI run counted 4 for 2)', () => {
    expect(leftoverCount(2, 2, false)).toBe(2);
    expect(leftoverCount(1, 2, false)).toBe(2);
    expect(leftoverCount(0, 2, false)).toBe(2);
  });

  it('keeps a larger host count: nothing it killed goes uncounted', () => {
    expect(leftoverCount(3, 1, false)).toBe(3);
  });

  it('after a stop of ours counts only what the host killed: the namespace was dying of the stop', () => {
    expect(leftoverCount(1, 5, true)).toBe(1);
    expect(leftoverCount(0, 5, true)).toBe(0);
  });
});
