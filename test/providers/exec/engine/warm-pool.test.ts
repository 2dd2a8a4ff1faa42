// Issue 32 item 1: the pool's bookkeeping with fake containers: filled to its size, a take starts the
// replacement, one that stops while waiting is dropped and replaced, a failed start does not loop, and
// dispose leaves nothing (not even one still starting).
import { WarmPool } from '../../../../src/providers/exec/engine/warm-pool.js';

interface Fake {
  readonly id: number;
  readonly ended: Promise<void>;
  stop(): void;
}

function fakes() {
  let next = 0;
  const made: Fake[] = [];
  const discarded: number[] = [];
  const pending: Array<{ resolve: (fake: Fake) => void; reject: (error: Error) => void }> = [];
  const make = () =>
    new Promise<Fake>((resolve, reject) => {
      pending.push({
        resolve: (fake) => resolve(fake),
        reject,
      });
    });
  const finishAll = async () => {
    for (const { resolve } of pending.splice(0)) {
      let stop!: () => void;
      const ended = new Promise<void>((r) => (stop = r));
      const fake = { id: ++next, ended, stop };
      made.push(fake);
      resolve(fake);
    }
    await new Promise((r) => setImmediate(r));
  };
  const failAll = async () => {
    for (const { reject } of pending.splice(0)) reject(new Error('engine away'));
    await new Promise((r) => setImmediate(r));
  };
  const discard = async (fake: Fake) => void discarded.push(fake.id);
  return { make, discard, made, discarded, pending, finishAll, failAll };
}

test('fills to its size, hands out the oldest, and starts a replacement for each one taken', async () => {
  const f = fakes();
  const pool = new WarmPool<Fake>(2, f.make, f.discard);
  expect(pool.take()).toBeUndefined(); // nothing ready yet: the caller makes its own; the fill has started
  expect(f.pending).toHaveLength(2);
  await f.finishAll();
  expect(pool.readyCount).toBe(2);
  expect(pool.take()!.id).toBe(1);
  expect(f.pending).toHaveLength(1);
  await f.finishAll();
  expect(pool.readyCount).toBe(2);
  expect(f.discarded).toEqual([]);
});

test('one that stops while it waits is dropped and replaced', async () => {
  const f = fakes();
  const pool = new WarmPool<Fake>(1, f.make, f.discard);
  pool.fill();
  await f.finishAll();
  f.made[0]!.stop();
  await new Promise((r) => setImmediate(r));
  expect(f.discarded).toEqual([1]);
  expect(f.pending).toHaveLength(1);
  await f.finishAll();
  expect(pool.take()!.id).toBe(2);
});

test('one taken and stopped later is the session\'s business: not discarded by the pool', async () => {
  const f = fakes();
  const pool = new WarmPool<Fake>(1, f.make, f.discard);
  pool.fill();
  await f.finishAll();
  const taken = pool.take()!;
  taken.stop();
  await new Promise((r) => setImmediate(r));
  expect(f.discarded).toEqual([]);
});

test('a failed start stops the refill until the next take', async () => {
  const f = fakes();
  const pool = new WarmPool<Fake>(2, f.make, f.discard);
  pool.fill();
  await f.failAll();
  pool.fill();
  expect(f.pending).toHaveLength(0);
  expect(pool.take()).toBeUndefined();
  expect(f.pending).toHaveLength(2);
});

test('dispose discards the ready ones and each one still starting once it is up', async () => {
  const f = fakes();
  const pool = new WarmPool<Fake>(2, f.make, f.discard);
  pool.fill();
  await f.finishAll();
  pool.take();
  const disposed = pool.dispose();
  expect(f.pending).toHaveLength(1);
  await f.finishAll();
  await disposed;
  expect(f.discarded.sort()).toEqual([2, 3]);
  pool.fill();
  expect(f.pending).toHaveLength(0);
});
