import { Server, type CallToolResult, type Transport } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import type { Logger } from '../../providers/logging/logger.js';
import type { CallGate } from '../calls/call-gate.js';
import { answerOf, runCall, type CallRequest } from '../calls/call-runner.js';
import { McpTasks } from '../tasks/mcp-tasks.js';
import { heartbeatIntervalOf } from '../transport/progress-heartbeat.js';
import { registerSpillResources } from '../calls/spill-resources.js';
import type { McpElicitationAnswerer } from '../approvals/elicitation-answerer.js';
import { SERVER_INFO, serverCapabilities, serverInstructions } from '../sessions/server-info.js';
import { registerToolHandlers } from '../calls/tool-handlers.js';

export interface McpConnectionOptions {
  /** Working directory of the connection's host session (the workspace). */
  readonly cwd: string;
  /**
   * Host session id: commands see it as `DSH_SESSION_ID`, so it must never be
   * a transport's session id (HTTP's `Mcp-Session-Id` lets its holder use
   * the session). Default: a random UUID.
   */
  readonly sessionId?: string;
  readonly logger?: Logger;
  /** When given, escalation approvals of this session are asked through MCP elicitation. */
  readonly approvals?: McpElicitationAnswerer;
  /** Who opens the session (the HTTP token's caller name); recorded on the host session. */
  readonly caller?: string;
  /** The server-wide cap on concurrent calls (`--max-concurrent-calls`), shared by every connection. */
  readonly callGate?: CallGate;
}

/**
 * One 2025-era MCP connection = one MCP `Server` = one host session. The
 * server lists the host's active tools, runs calls as the session, forwards
 * progress and session notices, and is closed together with its session:
 * `close()` (or the transport closing) disposes the session, which kills its
 * background tasks and closes its persistent shell. (The 2026-07-28 era has
 * no connection state: see modern-server.ts.)
 */
export class McpConnection {
  readonly server: Server;
  readonly session: HostSession;
  private closing?: Promise<void>;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly cancelled = new AbortController();

  constructor(
    host: DshHost,
    private readonly options: McpConnectionOptions,
  ) {
    this.session = host.openSession({ id: options.sessionId, cwd: options.cwd, caller: options.caller });
    const instructions = serverInstructions(host);
    this.server = new Server(SERVER_INFO, { capabilities: serverCapabilities(), ...(instructions ? { instructions } : {}) });
    const deps = { logger: options.logger, callGate: options.callGate, cancelled: this.cancelled.signal, heartbeatMs: heartbeatIntervalOf(host) };
    const spills = registerSpillResources(this.server, options.callGate);
    const plain = async (call: CallRequest): Promise<CallToolResult> => answerOf(this.session, await runCall(this.session, call, deps), [], spills);
    const tasks = McpTasks.attach(this.server, this.session, host, options.logger);
    registerToolHandlers(this.server, host, (call) => (tasks ? tasks.call(call, plain) : plain(call)), tasks?.shapeTool);
    if (tasks) this.unsubscribe.push(() => tasks.detach());
    this.unsubscribe.push(this.session.onNotice((notice) => this.log(notice)));
    if (options.approvals) this.unsubscribe.push(options.approvals.register(this.session.id, this.server));
    // The transport closing (client gone, HTTP DELETE) ends the session.
    this.server.onclose = () => void this.close();
    this.server.onerror = (error) => this.options.logger?.debug(`mcp: ${error.message}`);
    options.logger?.info(`mcp: session ${this.session.id} opened (cwd ${this.session.cwd})`);
  }

  get sessionId(): string {
    return this.session.id;
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /** Aborts every call in flight (their answers, "tool call aborted" and the like, are still sent); later calls start aborted. */
  cancelCalls(): void {
    this.cancelled.abort(new Error('the server is shutting down'));
  }

  /** Closes the transport and disposes the session; idempotent, awaits both. */
  close(): Promise<void> {
    // Deferred a tick: closing the transport calls back into close() synchronously.
    this.closing ??= Promise.resolve().then(async () => {
      for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
      await Promise.allSettled([this.server.close(), this.session.dispose()]);
      this.options.logger?.info(`mcp: session ${this.session.id} closed`);
    });
    return this.closing;
  }

  /** Each notice also goes out at once as a logging message, for clients that show them. */
  private log(notice: string): void {
    if (!this.server.transport) return;
    this.server
      .sendLoggingMessage({ level: 'info', logger: 'dsh-tools', data: notice }, this.server.transport.sessionId)
      .catch((error: unknown) => this.options.logger?.debug(`mcp: notice not delivered: ${String(error)}`));
  }
}
