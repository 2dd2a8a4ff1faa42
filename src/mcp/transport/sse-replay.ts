import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { droppedAnswer, droppedNotice, messageBytes, REPLAY_BYTE_LIMITS, STUB_BYTES, type ReplayBudget, type ReplayHolder } from './replay-budget.js';

/** What one session's store keeps for replay: at most this many events, none older than this. */
export const REPLAY_LIMITS = { maxEvents: 1000, maxAgeMs: 5 * 60_000 } as const;

/** A message given up for its size: enough to tell a resuming client what it misses. */
interface Dropped {
  readonly bytes: number;
  /** The request it answered, when it was an answer. */
  readonly answerTo?: string | number;
  readonly kind: string;
}

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  message: JSONRPCMessage | Dropped;
  bytes: number;
  readonly at: number;
}

/**
 * One HTTP session's SSE events, numbered, so a client whose stream broke
 * can reconnect with `Last-Event-ID` and get what it missed (the transport
 * stores every event, delivered or not, and replays the ones after that id
 * on the same stream). The window is bounded by count and age: an id that
 * fell out of it gets 400 `Invalid event ID format` from the transport, and
 * the client then knows its stream cannot be resumed. It is bounded in bytes
 * too (per message, per session, and with `budget` per server): a message
 * over the limit keeps only its id and size, and a resuming client gets an
 * error for that request (or a warning for a notification) in its place.
 */
export class BoundedEventStore implements EventStore, ReplayHolder {
  private readonly events: StoredEvent[] = [];
  private next = 1;
  private held = 0;

  constructor(
    private readonly limits: { readonly maxEvents: number; readonly maxAgeMs: number } = REPLAY_LIMITS,
    private readonly now: () => number = Date.now,
    private readonly budget?: ReplayBudget,
  ) {
    budget?.join(this);
  }

  private get bytes() {
    return this.budget?.limits ?? REPLAY_BYTE_LIMITS;
  }

  get heldBytes(): number {
    return this.held;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(this.next++);
    const size = messageBytes(message);
    // Too large to keep: only its id and size are, from the start.
    const kept = size > this.bytes.perMessage ? { message: droppedOf(message, size), bytes: STUB_BYTES } : { message, bytes: size };
    this.events.push({ id, streamId, ...kept, at: this.now() });
    this.change(kept.bytes);
    this.prune();
    while (this.held > this.bytes.perSession && this.shrinkOldest());
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
    for (const event of this.events.slice(at + 1)) if (event.streamId === streamId) await send(event.id, replayable(event.message));
    return streamId;
  }

  shrinkOldest(): boolean {
    const oldest = this.events.find((event) => !isDropped(event.message) && event.bytes > STUB_BYTES);
    if (!oldest) return false;
    this.stub(oldest);
    return true;
  }

  /** The session closed: what it held is given back to the server's budget. */
  dispose(): void {
    this.events.length = 0;
    this.budget?.leave(this);
    this.held = 0;
  }

  private stub(event: StoredEvent): void {
    if (isDropped(event.message)) return;
    const size = event.bytes;
    event.message = droppedOf(event.message, size);
    event.bytes = STUB_BYTES;
    this.change(STUB_BYTES - size);
  }

  private change(delta: number): void {
    this.held += delta;
    this.budget?.charge(delta);
  }

  private prune(): void {
    const oldest = this.now() - this.limits.maxAgeMs;
    let drop = Math.max(0, this.events.length - this.limits.maxEvents);
    while (drop < this.events.length && this.events[drop]!.at < oldest) drop++;
    if (drop === 0) return;
    const gone = this.events.splice(0, drop);
    this.change(-gone.reduce((sum, event) => sum + event.bytes, 0));
  }
}

function droppedOf(message: JSONRPCMessage, bytes: number): Dropped {
  const answer = ('result' in message || 'error' in message) && 'id' in message ? { answerTo: message.id as string | number } : {};
  const kind = 'method' in message ? ('id' in message ? 'server request' : 'notification') : 'answer';
  return { bytes, kind, ...answer };
}

function isDropped(message: JSONRPCMessage | Dropped): message is Dropped {
  return 'bytes' in message && !('jsonrpc' in message);
}

function replayable(message: JSONRPCMessage | Dropped): JSONRPCMessage {
  if (!isDropped(message)) return message;
  return message.answerTo !== undefined ? droppedAnswer(message.answerTo, message.bytes) : droppedNotice(message.kind, message.bytes);
}
