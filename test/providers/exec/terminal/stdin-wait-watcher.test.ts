import { jest } from '@jest/globals';
import { StdinWaitWatcher } from '../../../../src/providers/exec/terminal/stdin-wait-watcher.js';

function watcher(isWaiting: () => boolean) {
  const calls = { probes: 0, waiting: 0 };
  const w = new StdinWaitWatcher({
    quietMs: 200,
    maxIntervalMs: 1000,
    active: () => true,
    isWaiting: () => {
      calls.probes++;
      return isWaiting();
    },
    onWaiting: () => calls.waiting++,
  });
  return { w, calls };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('StdinWaitWatcher', () => {
  it('reports a confirmed wait after the quiet period', () => {
    const { w, calls } = watcher(() => true);
    w.start();
    jest.advanceTimersByTime(199);
    expect(calls.probes).toBe(0);
    jest.advanceTimersByTime(1);
    expect(calls).toEqual({ probes: 1, waiting: 0 });
    jest.advanceTimersByTime(50);
    jest.runOnlyPendingTimers();
    expect(calls).toEqual({ probes: 2, waiting: 1 });
    w.stop();
  });

  it('never inspects /proc while output keeps flowing', () => {
    const { w, calls } = watcher(() => true);
    w.start();
    for (let i = 0; i < 50; i++) {
      jest.advanceTimersByTime(100);
      w.noteData();
    }
    expect(calls).toEqual({ probes: 0, waiting: 0 });
    w.stop();
  });

  it('backs off while a quiet command is not reading', () => {
    const { w, calls } = watcher(() => false);
    w.start();
    jest.advanceTimersByTime(5000);
    // 200, 600, 1400, 2400, 3400, 4400
    expect(calls.probes).toBe(6);
    expect(calls.waiting).toBe(0);
    w.stop();
  });

  it('does not report when output arrives between the first sighting and the confirmation', () => {
    let reading = true;
    const { w, calls } = watcher(() => reading);
    w.start();
    jest.advanceTimersByTime(200);
    expect(calls.probes).toBe(1);
    w.noteData();
    reading = false;
    jest.advanceTimersByTime(1000);
    expect(calls.waiting).toBe(0);
    w.stop();
  });

  it('stops checking once stopped', () => {
    const { w, calls } = watcher(() => true);
    w.start();
    w.stop();
    jest.advanceTimersByTime(5000);
    expect(calls.probes).toBe(0);
  });
});
