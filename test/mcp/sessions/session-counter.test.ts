// The one session count of both eras: caps, freeing, and which idle session
// makes room when a cap is reached (unit, with hand-made idle candidates).
import { SessionCounter, type IdleCandidate, type SessionSlot } from '../../../src/mcp/sessions/session-counter.js';

/** A table of sessions each holding a slot; `busy` ones offer themselves to nobody. */
class FakeTable {
  readonly held: Array<{ caller: string; idleSince: number; busy: boolean; slot: SessionSlot; evicted?: string }> = [];

  constructor(private readonly counter: SessionCounter) {
    counter.addSource({ idleCandidates: () => this.candidates() });
  }

  open(caller: string, idleSince: number, busy = false): boolean {
    const slot = this.counter.take(caller);
    if (typeof slot === 'string') return false;
    this.held.push({ caller, idleSince, busy, slot });
    return true;
  }

  *candidates(): Iterable<IdleCandidate> {
    for (const entry of this.held) {
      if (entry.busy || entry.evicted) continue;
      yield { caller: entry.caller, idleSince: entry.idleSince, evict: (cause) => ((entry.evicted = cause), entry.slot.free()) };
    }
  }

  evicted(): Array<[string, number, string]> {
    return this.held.filter((entry) => entry.evicted).map((entry) => [entry.caller, entry.idleSince, entry.evicted!]);
  }
}

test('refuses past --max-sessions with "server" and past --max-sessions-per-caller with "caller"; a freed slot counts again', () => {
  const counter = new SessionCounter({ maxSessions: 3, maxSessionsPerCaller: 2 });
  const a1 = counter.take('a');
  const a2 = counter.take('a');
  expect(counter.take('a')).toBe('caller');
  const b1 = counter.take('b');
  expect(counter.take('b')).toBe('server');
  expect([counter.total, counter.heldBy('a'), counter.heldBy('b')]).toEqual([3, 2, 1]);
  if (typeof a1 === 'string' || typeof a2 === 'string' || typeof b1 === 'string') throw new Error('expected slots');
  a1.free();
  a1.free(); // idempotent: a second free must not give away another place
  expect([counter.total, counter.heldBy('a')]).toEqual([2, 1]);
  expect(typeof counter.take('b')).toBe('object');
  expect(counter.take('c')).toBe('server');
});

test('two eras share the count: slots taken through either source count against the same caps', () => {
  const counter = new SessionCounter({ maxSessions: 2 });
  const legacy = new FakeTable(counter);
  const handles = new FakeTable(counter);
  expect(legacy.open('a', 0, true)).toBe(true);
  expect(handles.open('a', 0, true)).toBe(true);
  expect(legacy.open('a', 0, true)).toBe(false);
  expect(handles.open('b', 0, true)).toBe(false);
});

test('a full server releases the oldest idle session, never a busy one', () => {
  const counter = new SessionCounter({ maxSessions: 3 });
  const table = new FakeTable(counter);
  table.open('a', 5, true); // busy but idle longest: must stay
  table.open('a', 20);
  table.open('a', 10);
  expect(table.open('a', 30)).toBe(true);
  expect(table.evicted()).toEqual([['a', 10, 'server']]);
  expect(counter.total).toBe(3);
});

test('the asking caller\'s own idle session goes before an older one of another caller', () => {
  const counter = new SessionCounter({ maxSessions: 2 });
  const table = new FakeTable(counter);
  table.open('victim', 1);
  table.open('me', 50);
  expect(table.open('me', 60)).toBe(true);
  expect(table.evicted()).toEqual([['me', 50, 'server']]);
});

test('with only other callers\' idle sessions, the server cap releases the oldest of them; with none idle it refuses', () => {
  const counter = new SessionCounter({ maxSessions: 2 });
  const table = new FakeTable(counter);
  table.open('b', 7);
  table.open('c', 3, true);
  expect(table.open('a', 9, true)).toBe(true);
  expect(table.evicted()).toEqual([['b', 7, 'server']]);
  expect(table.open('d', 9)).toBe(false);
});

test('the per-caller cap releases only the caller\'s own idle sessions, never another caller\'s', () => {
  const counter = new SessionCounter({ maxSessions: 10, maxSessionsPerCaller: 1 });
  const table = new FakeTable(counter);
  table.open('b', 1);
  table.open('a', 2, true);
  expect(table.open('a', 3)).toBe(false);
  expect(table.evicted()).toEqual([]);
  table.held[1]!.busy = false;
  expect(table.open('a', 3)).toBe(true);
  expect(table.evicted()).toEqual([['a', 2, 'caller']]);
});

test('a candidate whose release does not free its slot counts as nothing released (no endless loop)', () => {
  const counter = new SessionCounter({ maxSessions: 1 });
  counter.take('a');
  let asked = 0;
  counter.addSource({ idleCandidates: () => [{ caller: 'a', idleSince: 0, evict: () => void asked++ }] });
  expect(counter.take('b')).toBe('server');
  expect(asked).toBe(1);
});
