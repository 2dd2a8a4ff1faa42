import { BoundedEventStore, REPLAY_LIMITS } from '../../../src/mcp/transport/sse-replay.js';
import { ReplayBudget } from '../../../src/mcp/transport/replay-budget.js';

const ping = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info' as const, data: `n${n}` } });

async function replayed(store: BoundedEventStore, after: string): Promise<string[]> {
  const sent: string[] = [];
  await store.replayEventsAfter(after, { send: async (id) => void sent.push(id) });
  return sent;
}

test('replays the same stream only, after the given id', async () => {
  const store = new BoundedEventStore();
  const a1 = await store.storeEvent('a', ping(1));
  await store.storeEvent('b', ping(2));
  const a3 = await store.storeEvent('a', ping(3));
  expect(await replayed(store, a1)).toEqual([a3]);
  expect(await store.getStreamIdForEventId(a1)).toBe('a');
});

test('the window is bounded by count and by age; an id outside it cannot be resumed', async () => {
  let now = 0;
  const store = new BoundedEventStore({ maxEvents: 3, maxAgeMs: 1000 }, () => now);
  const ids = [];
  for (let n = 0; n < 5; n++) ids.push(await store.storeEvent('s', ping(n)));
  expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
  await expect(replayed(store, ids[1]!)).rejects.toThrow(/no longer kept/);
  expect(await replayed(store, ids[2]!)).toEqual([ids[3], ids[4]]);
  now = 5000;
  expect(await store.getStreamIdForEventId(ids[4]!)).toBeUndefined();
});

describe('bounded in bytes (issue 33 item 4)', () => {
  const limits = { perMessage: 1000, perSession: 3000, perServer: 5000 };
  const answer = (id: number, chars: number) => ({ jsonrpc: '2.0' as const, id, result: { text: 'x'.repeat(chars) } });

  async function replayedMessages(store: BoundedEventStore, after: string): Promise<unknown[]> {
    const sent: unknown[] = [];
    await store.replayEventsAfter(after, { send: async (_id, message) => void sent.push(message) });
    return sent;
  }

  test('a message over the per-message limit is never kept: a resuming client gets an error for that request instead', async () => {
    const store = new BoundedEventStore(REPLAY_LIMITS, Date.now, new ReplayBudget(limits));
    const primed = await store.storeEvent('s', {} as never);
    await store.storeEvent('s', answer(7, 5000));
    expect(store.heldBytes).toBeLessThan(200);
    const [replayed] = (await replayedMessages(store, primed)) as Array<{ id: number; error: { code: number; message: string } }>;
    expect(replayed).toMatchObject({ id: 7, error: { code: -32000 } });
    expect(replayed!.error.message).toMatch(/^the answer \(\d+ bytes\) was delivered on the stream that broke and was too large to keep for replay; send the request again$/);
  });

  test('a dropped notification is replayed as a warning, small ones as they were', async () => {
    const store = new BoundedEventStore(REPLAY_LIMITS, Date.now, new ReplayBudget(limits));
    const primed = await store.storeEvent('s', {} as never);
    const big = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info' as const, data: 'y'.repeat(2000) } };
    await store.storeEvent('s', big);
    await store.storeEvent('s', answer(1, 10));
    const replayed = (await replayedMessages(store, primed)) as Array<Record<string, unknown>>;
    expect(replayed[0]).toMatchObject({ method: 'notifications/message', params: { level: 'warning' } });
    expect(replayed[1]).toEqual(answer(1, 10));
  });

  test('past the per-session limit the oldest kept answers become errors; the newest stay whole', async () => {
    const store = new BoundedEventStore(REPLAY_LIMITS, Date.now, new ReplayBudget(limits));
    const primed = await store.storeEvent('s', {} as never);
    for (let id = 1; id <= 6; id++) await store.storeEvent('s', answer(id, 800));
    expect(store.heldBytes).toBeLessThanOrEqual(limits.perSession);
    const replayed = (await replayedMessages(store, primed)) as Array<{ id: number; error?: unknown }>;
    expect(replayed.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(replayed.filter((m) => m.error !== undefined).map((m) => m.id)).toEqual([1, 2, 3]);
  });

  test('past the per-server limit the largest store gives up first; a disposed store gives its bytes back', async () => {
    const budget = new ReplayBudget(limits);
    const big = new BoundedEventStore(REPLAY_LIMITS, Date.now, budget);
    const small = new BoundedEventStore(REPLAY_LIMITS, Date.now, budget);
    await small.storeEvent('s', answer(1, 900));
    await small.storeEvent('s', answer(2, 900));
    for (let id = 10; id < 13; id++) await big.storeEvent('b', answer(id, 900));
    await big.storeEvent('b', answer(13, 800));
    expect(budget.heldBytes).toBeLessThanOrEqual(limits.perServer);
    expect(small.heldBytes).toBeGreaterThan(1800);
    big.dispose();
    expect(budget.heldBytes).toBe(small.heldBytes);
  });
});
