import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ServerResponse } from 'node:http';
import type { McpConnection } from './mcp-connection.js';

/** Why an HTTP session ended. */
export type SessionEndReason = 'idle' | 'closed' | 'shutdown';

export interface HttpSessionLimits {
  /** A session with no request in flight for this long is disposed; 0 keeps sessions until they close. */
  readonly idleTimeoutMs: number;
  /** Sessions (open or being initialized) the server holds at once. */
  readonly maxSessions: number;
  /** Called once per session after it was disposed: its transport id, the reason, its host session's id. */
  readonly onSessionClosed?: (id: string, reason: SessionEndReason, hostSessionId: string) => void;
}

interface Entry {
  readonly transport: StreamableHTTPServerTransport;
  readonly connection: McpConnection;
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

  constructor(private readonly limits: HttpSessionLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /** Claims a place for a new session; false when the server is full. Pair with `release()`. */
  reserve(): boolean {
    if (this.entries.size + this.opening >= this.limits.maxSessions) return false;
    this.opening++;
    return true;
  }

  /** Gives back a place claimed by `reserve()` (the session was added, or its initialize failed). */
  release(): void {
    this.opening--;
  }

  /** Registers an initialized session; its idle clock starts now. */
  add(id: string, transport: StreamableHTTPServerTransport, connection: McpConnection): void {
    const entry: Entry = { transport, connection, inFlight: 0 };
    this.entries.set(id, entry);
    this.arm(id, entry);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * The session's transport for a request (undefined for an unknown id). The
   * request restarts the idle clock; unless it is the event stream (`GET`),
   * it counts as in flight until `res` closes.
   */
  begin(id: string, method: string | undefined, res: ServerResponse): StreamableHTTPServerTransport | undefined {
    const entry = this.entries.get(id);
    // A session already being disposed is as gone as a closed one.
    if (!entry || entry.reason !== undefined) return undefined;
    if (method === 'GET') {
      this.arm(id, entry);
      return entry.transport;
    }
    entry.inFlight++;
    clearTimeout(entry.timer);
    res.once('close', () => {
      entry.inFlight--;
      if (this.entries.get(id) === entry) this.arm(id, entry);
    });
    return entry.transport;
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
