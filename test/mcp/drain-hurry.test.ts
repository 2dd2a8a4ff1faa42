// drainWithin's hurry (issue 34.1): a stop after the stdio client left ends
// the wait for answers at once, cancels, and waits only briefly for the
// cancelled calls' answers.
import { jest } from '@jest/globals';
import { drainWithin, settlesWithin } from '../../src/mcp/transport/drain.js';

test('hurry during the wait: cancel runs at once and the cancelled answers are awaited', async () => {
  let answer!: () => void;
  const answers = new Promise<void>((resolve) => (answer = resolve));
  const cancel = jest.fn(() => answer());
  const hurry = new AbortController();
  const drained = drainWithin(60_000, () => answers, cancel, undefined, hurry.signal);
  await Promise.resolve();
  expect(cancel).not.toHaveBeenCalled();
  hurry.abort();
  await drained;
  expect(cancel).toHaveBeenCalledTimes(1);
});

test('no hurry: answers that come in time need no cancel', async () => {
  const cancel = jest.fn();
  await drainWithin(60_000, () => Promise.resolve(), cancel, undefined, new AbortController().signal);
  expect(cancel).not.toHaveBeenCalled();
});

test('hurry while waiting for cancelled answers that never come: the drain still ends', async () => {
  const hurry = new AbortController();
  const cancel = jest.fn(() => hurry.abort());
  await drainWithin(0, () => new Promise<void>(() => undefined), cancel, undefined, hurry.signal);
  expect(cancel).toHaveBeenCalledTimes(1);
});

test('settlesWithin: false at once for an aborted stop, true for a settled promise', async () => {
  const stopped = new AbortController();
  stopped.abort();
  expect(await settlesWithin(new Promise(() => undefined), 60_000, stopped.signal)).toBe(false);
  expect(await settlesWithin(Promise.reject(new Error('x')), 60_000)).toBe(true);
});
