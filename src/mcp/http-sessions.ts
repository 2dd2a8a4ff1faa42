import type { WebStandardStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import type { McpConnection } from './mcp-connection.js';
import type { DrainingTransport } from './draining-transport.js';

/** Why an HTTP session ended. */
export type SessionEndReason = 'idle' | 'closed' | 'shutdown';

export interface HttpSessionLimits {
  /** A session with no request in flight for this long is disposed; 0 keeps sessions until they close. */
  readonly idleTimeoutMs: number;
  /** Sessions (open or being initialized) the server holds at once. */
  readonly maxSessions: number;
  /** Sessions one caller (token name) holds at once; default: no cap of its own. */
  readonly maxSessionsPerCaller?: number;
  /** Called once per session after it was disposed: its transport id, the reason, its host session's id. */
  readonly onSessionClosed?: (id: string, reason: SessionEndReason, hostSessionId: string) => void;
  /** Sessions held outside this table (the 2026-07-28 era's handles), counted against the same caps. */
  readonly heldElsewhere?: (caller: string) => { total: number; byCaller: number };
}

/** A session's two ends, as a request to it needs them. */
export interface OpenSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly connection: McpConnection;
}

interface Entry {
  readonly transport: StreamableHTTPServerTransport;
  readonly connection: McpConnection;
  /** The token name that opened it: only that token may use it. */
  readonly caller: string;
  /** The connection's side of the transport: knows which requests still await an answer. */
  readonly answers: DrainingTransport;
  inFlight: number;
  timer?: NodeJS.Timeout;
  reason?: SessionEndReason;
}

/**
 * The HTTP server's open sessions, keyed by their `Mcp-Session-Id` (a
 * transport credential, unrelated to the host session id commands see), with their limits: at most `maxSessions`
 * at once (initializations still under way count, so a burst cannot pass the
 * cap), and idle expiry. A session is idle while none of its requests is in
 * flight: a long tool call keeps it alive and the clock restarts when its
 * last request ends. The standing event stream (GET) does not count — SDK
 * clients hold one open for the whole session, so counting it would keep
 * every connected but silent client forever.
 */
export class HttpSessionTable {
  private readonly entries = new Map<string, Entry>();
  private opening = 0;
  private readonly openingBy = new Map<string, number>();
  private requestsOpen = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly limits: HttpSessionLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Claims a place for a new session of `caller`; `'server'` when the server
   * is full, `'caller'` when that caller holds its share. Pair with `release()`.
   */
  reserve(caller: string): 'server' | 'caller' | undefined {
    const elsewhere = this.limits.heldElsewhere?.(caller) ?? { total: 0, byCaller: 0 };
    if (this.entries.size + this.opening + elsewhere.total >= this.limits.maxSessions) return 'server';
    const perCaller = this.limits.maxSessionsPerCaller;
    if (perCaller !== undefined) {
      if (this.heldBy(caller) + (this.openingBy.get(caller) ?? 0) + elsewhere.byCaller >= perCaller) return 'caller';
    }
    this.opening++;
    this.openingBy.set(caller, (this.openingBy.get(caller) ?? 0) + 1);
    return undefined;
  }

  /** Sessions `caller` holds (opened and not closed). */
  heldBy(caller: string): number {
    return [...this.entries.values()].filter((entry) => entry.caller === caller).length;
  }

  /** Gives back a place claimed by `reserve()` (the session was added, or its initialize failed). */
  release(caller: string): void {
    this.opening--;
    const left = (this.openingBy.get(caller) ?? 1) - 1;
    if (left > 0) this.openingBy.set(caller, left);
    else this.openingBy.delete(caller);
  }

  /** Registers an initialized session of `caller`; its idle clock starts now. */
  add(id: string, transport: StreamableHTTPServerTransport, connection: McpConnection, caller: string, answers: DrainingTransport): void {
    const entry: Entry = { transport, connection, caller, answers, inFlight: 0 };
    this.entries.set(id, entry);
    this.arm(id, entry);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * The session's transport for a request of `caller` (undefined for an
   * unknown id, or a session another caller opened: the answer is the same,
   * so a stolen id tells its holder nothing). The request restarts the idle
   * clock; unless it is the event stream (`GET`), it counts as in flight
   * until `res` closes.
   */
  begin(id: string, method: string | undefined, res: ServerResponse, caller: string): OpenSession | undefined {
    const entry = this.entries.get(id);
    // A session already being disposed is as gone as a closed one.
    if (!entry || entry.reason !== undefined || entry.caller !== caller) return undefined;
    if (method === 'GET') {
      this.arm(id, entry);
      return entry;
    }
    entry.inFlight++;
    this.requestsOpen++;
    clearTimeout(entry.timer);
    res.once('close', () => {
      entry.inFlight--;
      this.requestsOpen--;
      if (this.requestsOpen === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      if (this.entries.get(id) === entry) this.arm(id, entry);
    });
    return entry;
  }

  /** Refuses new requests on every session; resolves once each request received before is answered (or cancelled by its client). */
  drainAnswers(): Promise<void> {
    return Promise.all([...this.entries.values()].map((entry) => entry.answers.drain())).then(() => undefined);
  }

  /** Resolves once no session's POST or DELETE is open: every answer has been written and its stream ended. */
  whenNoRequestOpen(): Promise<void> {
    if (this.requestsOpen === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Aborts the calls of every session; their answers are still sent. */
  cancelCalls(): void {
    for (const entry of this.entries.values()) entry.connection.cancelCalls();
  }

  /** Forgets a session whose connection closed and reports why (`closed` unless the table ended it). */
  closed(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    clearTimeout(entry.timer);
    this.limits.onSessionClosed?.(id, entry.reason ?? 'closed', entry.connection.sessionId);
  }

  /** Disposes every session (server shutdown). */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    for (const entry of entries) entry.reason = 'shutdown';
    await Promise.allSettled(entries.map((entry) => entry.connection.close()));
    for (const id of [...this.entries.keys()]) this.closed(id);
  }

  private arm(id: string, entry: Entry): void {
    clearTimeout(entry.timer);
    if (this.limits.idleTimeoutMs <= 0 || entry.inFlight > 0) return;
    entry.timer = setTimeout(() => {
      entry.reason = 'idle';
      void entry.connection.close().finally(() => this.closed(id));
    }, this.limits.idleTimeoutMs);
    // An idle timer alone must not keep the process alive.
    entry.timer.unref();
  }
}
