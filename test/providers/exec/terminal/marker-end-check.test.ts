import { EndCheck, type ShellState } from '../../../../src/providers/exec/terminal/marker-end-check.js';
import { MarkerParser } from '../../../../src/providers/exec/terminal/marker-parser.js';
import { endPrefix, startMarker } from '../../../../src/providers/exec/terminal/marker-protocol.js';

/** More looks than EndCheck makes on the next loop turns before it paces them. */
const QUICK_LOOKS = 25;

describe('EndCheck', () => {
  const confirmed = (idle: () => ShellState | undefined) => {
    const calls: Array<[number, boolean]> = [];
    return { check: new EndCheck(idle, (code, forged) => calls.push([code, forged])), calls };
  };

  it('confirms at once when the shell is idle or cannot be looked at, with the end marker status', () => {
    for (const idle of ['idle', undefined] as const) {
      const { check, calls } = confirmed(() => idle);
      check.candidate('end', 4);
      check.candidate('prompt', 0);
      check.check();
      expect(calls).toEqual([[4, false]]);
    }
  });

  it('holds output after a marker and releases it as output when a second end marker proves the first forged', async () => {
    let state: ShellState = 'busy';
    const { check, calls } = confirmed(() => state);
    check.candidate('end', 0);
    check.check();
    expect(check.output('more')).toBe('');
    expect(check.candidate('end', 3)).toBe('more');
    expect(check.output('tail')).toBe('tail');
    state = 'idle';
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([[3, true]]);
  });

  it('after seeing the shell busy, waits for idle to last with no output before believing the end (its real marker may be unread)', async () => {
    let state: ShellState = 'busy';
    const { check, calls } = confirmed(() => state);
    check.candidate('end', 0);
    check.check();
    state = 'idle';
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls).toEqual([]);
    expect(check.output('done')).toBe('');
    expect(check.candidate('end', 2)).toBe('done');
    check.check();
    expect(calls).toEqual([[2, true]]);
  });

  /**
   * An EndCheck whose shell is on a CPU for `runningMs` after the marker,
   * then idle; resolves with how often idle was seen before the end was
   * believed. With `seenLate`, the shell stays on the CPU until a look has
   * found it there after `runningMs`, past the quick looks: a loaded test
   * machine may stall the loop across the whole window, and a look that
   * never happened cannot see the shell running.
   */
  const idleChecksAfterRunning = (runningMs: number, seenLate = false): Promise<number> =>
    new Promise((resolve) => {
      let idleSeen = 0;
      let looks = 0;
      let late = false;
      const start = performance.now();
      const check = new EndCheck(
        () => {
          looks++;
          const elapsed = performance.now() - start;
          if (elapsed < runningMs) return 'running';
          if (seenLate && !late) {
            late = looks > QUICK_LOOKS;
            return 'running';
          }
          idleSeen++;
          return 'idle';
        },
        () => resolve(idleSeen),
      );
      check.candidate('end', 0);
      check.check();
    });

  it('believes the end at the first idle look when the shell only waited for a CPU a moment after the marker', async () => {
    expect(await idleChecksAfterRunning(5)).toBe(1);
  });

  it('counts a shell on a CPU long after the marker as busy: idle must then last before the end is believed', async () => {
    expect(await idleChecksAfterRunning(40, true)).toBeGreaterThan(1);
  });

  it('gives held text back when abandoned before an end was confirmed, nothing after', () => {
    const { check } = confirmed(() => 'busy');
    check.candidate('prompt', 0);
    check.output('late');
    expect(check.abandon()).toBe('late');
    expect(check.pending).toBe(false);
  });
});

describe('MarkerParser.reopen', () => {
  it('reads on after an end marker with what followed it', () => {
    const nonce = '0123456789abcdef';
    const parser = new MarkerParser(nonce, 'fedcba9876543210');
    expect(parser.push(`${startMarker(nonce)}a${endPrefix(nonce)}0\x1fb`).end).toEqual({ via: 'end', exitCode: 0 });
    expect(parser.reopen()).toEqual({ output: 'b' });
    expect(parser.push(`c${endPrefix(nonce)}5\x1f`)).toEqual({ output: 'c', end: { via: 'end', exitCode: 5 } });
  });
});
