import type { WebStandardStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import type { Clock, Logger } from '../../providers/logging/logger.js';
import type { McpConnection } from './mcp-connection.js';
import type { DrainingTransport } from '../transport/draining-transport.js';
import { SessionActivity, type IdleSettings, type RunningTasks } from '../sessions/idle-stages.js';
import { IdleSessionTable, type LiveSession } from '../sessions/idle-session-table.js';
import type { ReleaseCause, ServerRelease } from '../sessions/released-sessions.js';
import { freedNote, type SessionCounter, type SessionRefusal, type SessionSlot } from '../sessions/session-counter.js';

/** Why an HTTP session ended. */
export type SessionEndReason = 'idle' | 'lifetime' | 'evicted' | 'closed' | 'shutdown';

interface HttpSessionLimits {
  /** When a session and its shell are released for idleness. */
  readonly idle: IdleSettings;
  /** The one `--max-sessions`/`--max-sessions-per-caller` count, shared with the session handles. */
  readonly counter: SessionCounter;
  /** Whether a session has a background task still running (such a session is not idle). */
  readonly runningTasks: RunningTasks;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Called once per session after it was disposed: its transport id, the reason, its host session's id. */
  readonly onSessionClosed?: (id: string, reason: SessionEndReason, hostSessionId: string) => void;
  /** Called when the server ends a session (abandoned, past its lifetime, or to make room). */
  readonly onReleased?: (release: ServerRelease) => void;
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
  readonly slot: SessionSlot;
  readonly activity: SessionActivity;
  reason?: SessionEndReason;
  /** Set once the server ends it: resolves when it has left the table. */
  gone?: Promise<void>;
}

/**
 * The HTTP server's open 2025-era sessions, keyed by their `Mcp-Session-Id`
 * (a transport credential, unrelated to the host session id commands see).
 * Each holds a slot of the shared session counter from its initialize on
 * (so a burst cannot pass the cap). A session is busy while a request of it
 * is in flight, its event stream (GET) is open, or one of its background
 * tasks runs; an idle one loses its shell, then itself (idle-stages.ts), or
 * is released early when a new session needs its place.
 */
export class HttpSessionTable {
  private readonly table: IdleSessionTable<Entry>;
  private readonly entries: Map<string, Entry>;
  private readonly clock: Clock;
  private requestsOpen = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly limits: HttpSessionLimits) {
    // An entry stays until its connection has closed; one the server is ending no longer counts.
    this.table = new IdleSessionTable<Entry>(limits, (entry) => entry.reason === undefined, (id, entry, cause) => this.end(id, entry, cause));
    this.entries = this.table.entries;
    this.clock = this.table.clock;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live sessions (the operator console's list). */
  liveSessions(): LiveSession[] {
    return this.table.liveSessions();
  }

  /** One idle stage pass now (tests drive it with a fake clock). */
  sweep(): void {
    this.table.sweep();
  }

  /** Claims a place for a new session of `caller`, releasing an idle one if a cap needs it; else which cap refused. */
  reserve(caller: string): SessionSlot | SessionRefusal {
    return this.limits.counter.take(caller);
  }

  /** The refusal's note on when a session `refusal`'s cap counts ends by itself (see freedNote). */
  private freedNote(refusal: SessionRefusal, caller: string): string {
    return freedNote(this.limits.counter.nextFreed(refusal, caller), this.clock.now());
  }

  /** Why no session more of `caller` fits (the 503 a new or adopted session gets): the cap, and when a place frees up. */
  tooMany(refusal: SessionRefusal, caller: string): string {
    const caps = this.limits.counter.caps;
    const message =
      refusal === 'server'
        ? `too many sessions: this server holds at most ${caps.maxSessions} (--max-sessions); close one or wait for idle ones to expire`
        : `too many sessions for caller "${caller}": at most ${caps.maxSessionsPerCaller} each (--max-sessions-per-caller); close one or wait for idle ones to expire`;
    return message + this.freedNote(refusal, caller);
  }

  /** Registers an initialized session of `caller` holding `slot`; its idle clock starts now. */
  add(id: string, transport: StreamableHTTPServerTransport, connection: McpConnection, caller: string, answers: DrainingTransport, slot: SessionSlot): void {
    const activity = new SessionActivity(connection.session, this.clock, this.limits.runningTasks);
    this.entries.set(id, { transport, connection, caller, answers, slot, activity });
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Why `caller`'s session `id` was released by the server (idle, or to make room); undefined for any other id or caller. */
  releasedReason(id: string, caller: string): string | undefined {
    return this.table.releasedReason(id, caller);
  }

  /**
   * The session's transport for a request of `caller` (undefined for an
   * unknown id, or a session another caller opened: the answer is the same,
   * so a stolen id tells its holder nothing). The request — or the event
   * stream (`GET`) — keeps the session busy until `res` closes.
   */
  begin(id: string, method: string | undefined, res: ServerResponse, caller: string): OpenSession | undefined {
    const entry = this.entries.get(id);
    // A session already being disposed is as gone as a closed one.
    if (!entry || entry.reason !== undefined || entry.caller !== caller) return undefined;
    const end = entry.activity.begin(method === 'GET');
    if (method === 'GET') {
      res.once('close', end);
      return entry;
    }
    this.requestsOpen++;
    res.once('close', () => {
      end();
      this.requestsOpen--;
      if (this.requestsOpen === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
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
    entry.slot.free();
    this.limits.onSessionClosed?.(id, entry.reason ?? 'closed', entry.connection.sessionId);
  }

  /**
   * Lets go of a shared session here that ended on another replica (its
   * record is gone): disposes it locally; its id now reads as unknown.
   */
  letGo(id: string): void {
    const entry = this.entries.get(id);
    if (!entry || entry.reason !== undefined) return;
    entry.reason = 'closed';
    entry.slot.free();
    entry.gone = entry.connection.close().finally(() => this.closed(id));
  }

  /** Resolves once a session the server is ending here has left the table (at once for any other id): its host session may be opened again. */
  whenGone(id: string): Promise<void> {
    return this.entries.get(id)?.gone ?? Promise.resolve();
  }

  /** Disposes every session (server shutdown). */
  async closeAll(): Promise<void> {
    this.table.stop();
    const entries = [...this.entries.values()];
    for (const entry of entries) entry.reason ??= 'shutdown';
    await Promise.allSettled(entries.map((entry) => entry.connection.close()));
    for (const id of [...this.entries.keys()]) this.closed(id);
  }

  /** Releases a session the server ends (abandoned, past its lifetime, or to make room): its place at once, its host session and tasks in the background. */
  private end(id: string, entry: Entry, cause: ReleaseCause): void {
    entry.reason = cause.kind;
    entry.slot.free();
    const withRunningTasks = cause.kind !== 'evicted' && this.limits.runningTasks(entry.activity.session);
    if (withRunningTasks) {
      this.limits.logger?.info(`mcp http: session ${entry.connection.sessionId} ended (${cause.kind}) with its running background tasks`);
    }
    this.limits.onReleased?.({ kind: cause.kind, clientSession: id, session: entry.connection.sessionId, caller: entry.caller, withRunningTasks });
    entry.gone = entry.connection.close().finally(() => this.closed(id));
  }
}

/** The 404 answer to a request with session id `id`: why it is gone when `caller` held it and the server released it. */
export function sessionNotFound(sessions: HttpSessionTable, id: string, caller: string): string {
  const reason = sessions.releasedReason(id, caller);
  if (reason === undefined) return 'session not found (expired or closed): initialize again';
  return `session not found: ${reason}, with its shell and background tasks; initialize again`;
}
