import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** What one session's store keeps for replay: at most this many events, none older than this. */
export const REPLAY_LIMITS = { maxEvents: 1000, maxAgeMs: 5 * 60_000 } as const;

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly at: number;
}

/**
 * One HTTP session's SSE events, numbered, so a client whose stream broke
 * can reconnect with `Last-Event-ID` and get what it missed (the transport
 * stores every event, delivered or not, and replays the ones after that id
 * on the same stream). The window is bounded by count and age: an id that
 * fell out of it gets 400 `Invalid event ID format` from the transport, and
 * the client then knows its stream cannot be resumed.
 */
export class BoundedEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private next = 1;

  constructor(
    private readonly limits: { readonly maxEvents: number; readonly maxAgeMs: number } = REPLAY_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(this.next++);
    this.events.push({ id, streamId, message, at: this.now() });
    this.prune();
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    this.prune();
    return Promise.resolve(this.events.find((event) => event.id === eventId)?.streamId);
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    this.prune();
    const at = this.events.findIndex((event) => event.id === lastEventId);
    if (at < 0) throw new Error(`event ${lastEventId} is no longer kept for replay`);
    const streamId = this.events[at]!.streamId;
    for (const event of this.events.slice(at + 1)) if (event.streamId === streamId) await send(event.id, event.message);
    return streamId;
  }

  private prune(): void {
    const oldest = this.now() - this.limits.maxAgeMs;
    let drop = Math.max(0, this.events.length - this.limits.maxEvents);
    while (drop < this.events.length && this.events[drop]!.at < oldest) drop++;
    if (drop > 0) this.events.splice(0, drop);
  }
}
