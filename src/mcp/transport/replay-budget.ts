import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * How many bytes the SSE replay stores may hold (docs/operations.md, Limits):
 * a message above `perMessage` is never kept (only a stub saying it was
 * dropped), and past `perSession` or `perServer` the oldest kept messages
 * become such stubs. Counted in characters of the messages' strings, which
 * is what holds the memory (a 64 MiB spill read is one 64 MiB string).
 */
export interface ReplayByteLimits {
  readonly perMessage: number;
  readonly perSession: number;
  readonly perServer: number;
}

export const REPLAY_BYTE_LIMITS: ReplayByteLimits = { perMessage: 256 * 1024, perSession: 4 * 1024 * 1024, perServer: 32 * 1024 * 1024 };

/** What a stub (a dropped message's id and size) is charged: its own small record. */
export const STUB_BYTES = 64;

/** One store as the budget sees it: how much it holds, and a way to make it hold less. */
export interface ReplayHolder {
  readonly heldBytes: number;
  /** Turns its oldest kept message into a stub; false when nothing is left to shrink. */
  shrinkOldest(): boolean;
}

/**
 * The server-wide byte budget of every session's replay store. Each store
 * charges what it keeps; past the server's limit the store holding most
 * gives up its oldest message first, so one session's big answers cost that
 * session's replay, not another's.
 */
export class ReplayBudget {
  private readonly holders = new Set<ReplayHolder>();
  private used = 0;

  constructor(readonly limits: ReplayByteLimits = REPLAY_BYTE_LIMITS) {}

  /** Bytes held over every store now. */
  get heldBytes(): number {
    return this.used;
  }

  join(holder: ReplayHolder): void {
    this.holders.add(holder);
  }

  /** Forgets a store (its session closed) and what it held. */
  leave(holder: ReplayHolder): void {
    if (this.holders.delete(holder)) this.used -= holder.heldBytes;
  }

  /** A store's holding changed by `delta` bytes; over the server limit, the largest holders shrink. */
  charge(delta: number): void {
    this.used += delta;
    while (this.used > this.limits.perServer) {
      const largest = [...this.holders].reduce<ReplayHolder | undefined>((best, h) => (best === undefined || h.heldBytes > best.heldBytes ? h : best), undefined);
      if (!largest?.shrinkOldest()) return;
    }
  }
}

/**
 * A message's size for the budget: the characters of its strings and keys,
 * walked without serialising (serialising a 64 MiB answer to measure it
 * would cost another 64 MiB).
 */
export function messageBytes(message: JSONRPCMessage | Record<string, never>): number {
  let total = 0;
  const stack: unknown[] = [message];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') total += value.length + 2;
    else if (Array.isArray(value)) {
      total += 2;
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        total += key.length + 4;
        stack.push(item);
      }
    } else total += 8;
  }
  return total;
}

/** What a resuming client is sent for a dropped answer: an error for its request, so no request is left unanswered. */
export function droppedAnswer(id: string | number, bytes: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: `the answer (${bytes} bytes) was delivered on the stream that broke and was too large to keep for replay; send the request again`,
    },
  };
}

/** What a resuming client is sent for a dropped notification or server request: a warning in its log. */
export function droppedNotice(kind: string, bytes: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'warning', logger: 'dsh-tools', data: `a ${kind} (${bytes} bytes) sent on this stream was too large to keep for replay and is missing here` },
  };
}
