import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type ProgressToken,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { DshHost } from '../container/dsh-host.js';
import type { HostSession } from '../container/host-session.js';
import type { ToolProgress } from '../core/tool-contract.js';
import type { Logger } from '../providers/logging/logger.js';
import { errorResult } from '../core/tool-contract.js';
import { toCallToolResult, toMcpTool } from './call-result.js';
import type { CallGate } from './call-gate.js';
import { withHeartbeat } from './progress-heartbeat.js';
import { registerSpillResources } from './spill-resources.js';
import type { McpElicitationAnswerer } from './elicitation-answerer.js';
import { SERVER_INFO, serverCapabilities, serverInstructions } from './server-info.js';

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

type SendNotification = (notification: ServerNotification) => Promise<void>;

/**
 * One MCP connection = one MCP `Server` = one host session. The server lists
 * the host's active tools, runs calls as the session, forwards progress and
 * session notices, and is closed together with its session: `close()` (or
 * the transport closing) disposes the session, which kills its background
 * tasks and closes its persistent shell.
 */
export class McpConnection {
  readonly server: Server;
  readonly session: HostSession;
  private closing?: Promise<void>;
  private readonly unsubscribe: Array<() => void> = [];
  /** Aborted by `cancelCalls()` (a drain that ran out of time): unlike the client's cancel, the answer is still sent. */
  private readonly cancelled = new AbortController();

  constructor(
    private readonly host: DshHost,
    private readonly options: McpConnectionOptions,
  ) {
    this.session = host.openSession({ id: options.sessionId, cwd: options.cwd, caller: options.caller });
    const instructions = serverInstructions(host);
    this.server = new Server(SERVER_INFO, {
      capabilities: serverCapabilities(),
      ...(instructions ? { instructions } : {}),
    });
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.host.tools().map(toMcpTool) }));
    const spills = registerSpillResources(this.server);
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args, _meta } = request.params;
      const token = _meta?.progressToken;
      const started = performance.now();
      const signal = AbortSignal.any([extra.signal, this.cancelled.signal]);
      const admitted = options.callGate ? await options.callGate.acquire(signal) : undefined;
      if (admitted !== undefined && typeof admitted !== 'function') return toCallToolResult(errorResult(admitted.refused), []);
      let result;
      try {
        const forward = token === undefined ? undefined : progressForwarder(token, extra.sendNotification);
        result = await withHeartbeat(this.host, forward, (onProgress) => this.session.call(name, args ?? {}, { signal, onProgress }));
      } finally {
        admitted?.();
      }
      // A cancelled call's reply is never sent: keep the notices for the next one.
      const notices = extra.signal.aborted ? [] : this.session.takeNotices();
      const outcome = extra.signal.aborted ? 'cancelled' : result.isError ? 'error' : 'ok';
      this.options.logger?.debug(`mcp ${this.session.id}: ${name} → ${outcome} in ${Math.round(performance.now() - started)} ms`);
      return toCallToolResult(result, notices, spills);
    });
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
    this.server
      .sendLoggingMessage({ level: 'info', logger: 'dsh-tools', data: notice }, this.server.transport?.sessionId)
      .catch((error: unknown) => this.options.logger?.debug(`mcp: notice not delivered: ${String(error)}`));
  }
}

/**
 * Progress as MCP wants it: `progress` must grow, so a report without new
 * bytes is dropped. The tools throttle their reports already.
 */
function progressForwarder(token: ProgressToken, send: SendNotification): (progress: ToolProgress) => void {
  let last = 0;
  return (progress) => {
    if (!(progress.bytes > last)) return;
    last = progress.bytes;
    send({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress: progress.bytes,
        ...(progress.lastLine ? { message: progress.lastLine } : {}),
      },
    }).catch(() => undefined);
  };
}
