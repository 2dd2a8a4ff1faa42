import { BoundedEventStore } from '../../src/mcp/sse-replay.js';

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
