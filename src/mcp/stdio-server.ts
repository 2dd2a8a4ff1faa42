import type { Readable, Writable } from 'node:stream';
import type { DshHost } from '../container/dsh-host.js';
import { lazy } from '../core/lazy.js';
import type { Logger } from '../providers/logging/logger.js';
import { answerInitializeEarly, ReplayingTransport } from './early-initialize.js';
import type { McpElicitationAnswerer } from './approvals/elicitation-answerer.js';
import type { CallGate } from './calls/call-gate.js';
import { drainWithin } from './transport/drain.js';
import { DrainingTransport } from './transport/draining-transport.js';
import { CheckedStdioTransport } from './transport/stdio-wire.js';
import type { McpConnection } from './legacy/mcp-connection.js';

/** The MCP SDK: loaded while the client's initialize is answered without it (see early-initialize.ts). */
const sdk = lazy(() =>
  Promise.all([
    import('@modelcontextprotocol/server/stdio'),
    import('./legacy/mcp-connection.js'),
    import('./modern/modern-server.js'),
    // After modern-server (which imports it): jest's ESM loader fails a module two parallel imports link at once.
    import('./modern/modern-server.js').then(() => import('./sessions/session-handles.js')),
  ]),
);

/** Resolves after the event loop's next poll for I/O (a check phase, then one more). */
function afterPendingInput(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Why a server stopped by itself when that was a failure, not its client leaving. */
interface ServerFailure {
  readonly why: string;
}

/** A running MCP server: `closed` settles when its clients are gone; `drain()` then `close()` ends it without losing answers. */
export interface RunningServer {
  /** Settles when the server stops by itself (stdio: the client closed the pipe), with the failure if it broke. */
  readonly closed: Promise<ServerFailure | void>;
  /**
   * Stops taking new sessions and calls (HTTP: 503 with `Retry-After`; stdio:
   * a JSON-RPC error), waits up to `timeoutMs` for the calls in flight to
   * answer, then cancels the rest and waits (bounded) for those answers.
   * Resolves when every answer is out; `close()` comes next. `hurry`
   * aborting cancels at once what still runs (see serve-lifecycle.ts).
   */
  drain(timeoutMs: number, hurry?: AbortSignal): Promise<void>;
  /** Closes every connection and disposes their sessions. Does not dispose the host. */
  close(): Promise<void>;
}

/** Sessions a stdio client may hold under handles at once (2026-07-28 era). */
const STDIO_MAX_HANDLES = 64;

export interface StdioServeOptions {
  readonly workspace: string;
  readonly logger?: Logger;
  readonly approvals?: McpElicitationAnswerer;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** The cap on concurrent tool calls (`--max-concurrent-calls`). */
  readonly callGate?: CallGate;
}

/**
 * Serves one MCP connection over stdin/stdout: one host session with cwd =
 * workspace. The connection ends when stdin ends, stdout breaks (the client
 * went away) or the transport closes; the session is disposed then.
 * Nothing but protocol may be written to stdout: logs go to stderr.
 */
export async function serveStdio(host: DshHost, options: StdioServeOptions): Promise<RunningServer> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let markClosed!: (failure?: ServerFailure) => void;
  const closed = new Promise<ServerFailure | void>((resolve) => (markClosed = resolve));
  const end = (why: string, failure?: ServerFailure) => {
    options.logger?.debug(`mcp stdio: ${why}`);
    markClosed(failure);
  };
  const onEnd = () => end('stdin ended');
  // EPIPE on stdout means the client is gone; unhandled, it would crash the
  // process and orphan every child the session started.
  let stdoutBroken = false;
  const onBrokenPipe = (error: Error) => {
    stdoutBroken = true;
    end(`stdout failed: ${error.message}`);
  };
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  stdout.on('error', onBrokenPipe);

  const [answered, [{ serveStdio: serveEras }, { McpConnection }, { modernServer }, { stdioHandles }]] = await Promise.all([
    answerInitializeEarly(stdin, stdout, host),
    // After one pass of I/O: in the bundled CLI the SDK's modules evaluate at
    // once on import() (nothing to read from disk), which would hold back
    // reading the initialize request that is already waiting.
    afterPendingInput().then(sdk),
  ]);
  const wire = new CheckedStdioTransport(stdin, stdout);
  if (answered !== undefined) wire.markInitialized(answered.params.protocolVersion);
  const transport = new DrainingTransport(answered === undefined ? wire : new ReplayingTransport(wire, answered));
  const cancelled = new AbortController();
  // 2026-07-28 requests on this pipe: one client, so every handle is this connection's (no caller to fence).
  const handles = stdioHandles(host, options.workspace, STDIO_MAX_HANDLES, options.logger);
  let connection: McpConnection | undefined;
  const legacy = (): McpConnection =>
    (connection ??= new McpConnection(host, {
      cwd: options.workspace,
      logger: options.logger,
      approvals: options.approvals,
      ...(options.callGate ? { callGate: options.callGate } : {}),
    }));
  const modernDeps = { host, handles, cancelled: cancelled.signal, ...(options.logger ? { logger: options.logger } : {}), ...(options.callGate ? { callGate: options.callGate } : {}), ...(options.approvals ? { approvals: options.approvals.roundTrips } : {}) };

  // The transport reports a fatal read (an over-long message) as an error, then closes itself.
  let lastError: Error | undefined;
  let closing = false;
  wire.watcher = {
    error: (error) => (lastError = error),
    // Only close() or a broken read closes this transport; stdin ending does not.
    closed: () => end('transport closed', closing ? undefined : transportFailure(lastError)),
  };
  const factory = (ctx: { era: 'legacy' | 'modern' }) => (ctx.era === 'legacy' ? legacy().server : modernServer(modernDeps, undefined));
  // The CommonJS build types the lazy import from the SDK's ESM declarations and Server from its CJS ones: the same class.
  const served = serveEras(factory as unknown as Parameters<typeof serveEras>[0], {
    transport,
    onerror: (error) => options.logger?.debug(`mcp: ${error.message}`),
  });
  return {
    closed,
    // With stdout broken no answer can be delivered: cancel at once.
    drain: (timeoutMs, hurry) =>
      drainWithin(stdoutBroken ? 0 : timeoutMs, () => transport.drain(), () => {
        connection?.cancelCalls();
        cancelled.abort(new Error('the server is shutting down'));
      }, options.logger, hurry),
    close: async () => {
      closing = true;
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await served.close();
      options.approvals?.roundTrips.close();
      await Promise.allSettled([connection?.close(), handles.closeAll()]);
      markClosed();
      // Keep swallowing late EPIPEs from writes that were already queued.
      stdout.off('error', onBrokenPipe);
      stdout.on('error', () => undefined);
    },
  };
}

function transportFailure(error: Error | undefined): ServerFailure {
  const detail = error?.message ?? 'no reason given';
  if (/exceeded maximum size/i.test(detail)) return { why: `stdin carried a message over the MCP transport's limit (${detail})` };
  return { why: `the stdio transport failed (${detail})` };
}
