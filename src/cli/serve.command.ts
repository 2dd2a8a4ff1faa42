import { InvalidArgumentError, type Command } from 'commander';
import type { RunningServer } from '../mcp/stdio-server.js';
import type { GlobalOptions } from './cli-options.js';
import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';
import { MAX_TIMER_MS } from '../core/timer.js';
import { checkObserveFlags, parseAuditLog, parseMetricsPort, startMetricsPort, withObserveFlags, type ObserveFlags } from './observe-options.js';
import { addServeDeployOptions, checkServeDeployOptions, type ServeDeployOptions } from './serve-http-options.js';
import { addServeConnectionOptions, connectionLimitsOf, type ServeConnectionFlags } from './serve-http-limits.js';
import { callGateFrom } from './call-gate-option.js';
import { addLogOptions, withLogFlags, type LogFlags } from './log-options.js';
import { loadHeartbeat, parseHeartbeatInterval, type HeartbeatFlag } from './heartbeat-option.js';
import { hideServerFile } from '../core/server-files.js';
import { addApprovalOptions, withApprovalFlags, type ApprovalFlags } from './approval-options.js';
import { addReapOption, startReaper, type ReapFlags } from './serve-reaper.js';
import { addWarmPoolOption, withWarmPool, type WarmPoolFlag } from './warm-pool-option.js';
import { addSharedSessionOptions, checkSharedSessionFlags, startSharedSessions, type SharedSessionFlags, type SharedSessions } from './shared-sessions-option.js';
import { addConsoleOptions, consoleSettings, startConsole, type ConsoleFileSettings, type ConsoleFlags } from './console-options.js';

const HELP_AFTER = `
Transports:
  stdio (default)     one MCP connection on stdin/stdout; stdout carries only
                      protocol, logs go to stderr. Closing stdin stops the server.
  --http <port>       Streamable HTTP at http://<--host>:<port>/mcp (--host
                      defaults to 127.0.0.1; port 0 picks a free port, printed
                      on stderr). Each MCP session is its own agent session,
                      usable only with the token that opened it. Every request
                      needs "Authorization: Bearer <token>": the tokens come
                      from --token-file (one token, "name:token" lines, or a
                      directory of token files named after their callers),
                      else $DSH_HTTP_TOKEN, else one generated into a private
                      0600 file whose path is printed on stderr.
                      GET /healthz and /readyz answer without a token.

Each connection is one agent session: cwd = --workspace, its own background
tasks and persistent shell, all disposed when the connection closes. SIGINT,
SIGTERM or end of stdin drain the server (no new sessions or calls; calls in
flight answer within --drain-timeout, else they are cancelled), then dispose
every session and leave no process behind; a second signal exits at once.
SIGHUP reopens the audit file at its path (log rotation) and keeps serving.

Composition file (--config, YAML or JSON; unknown keys are errors):
  workspace: .               session cwd (relative to the file)
  shell: oneshot             persistent (one PTY shell per session), or both
  toolNames: { oneshot, persistent }  tool names (bash; bash_persistent beside bash)
  logLevel: warn             debug | info | warn | error (stderr; --log-level)
  logFormat: text            text | json (one object per line; --log-format)
  dshHome: ~/.dsh            exported to commands as DSH_HOME
  executor: { timeoutMs, maxTimeoutMs, maxOutputBytes, maxSpillBytes,
              maxRetainedSpillBytes, graceMs, allowEnv, keepSpills }
  tasks: { maxConcurrentTasksPerOwner, maxFinishedTasksPerOwner }
  bash: { enableRunInBackground }
  persistent: { backendType, timeoutMs, maxOutputChars, description }
  env: { <contributor>: { DSH_NAME: value } }
  sandbox: { mode, network, fallbackRoot, bwrapPath }   (selects the bwrap sandbox)
  approval: { policy: ask | never, maxAuditRecords, timeoutMs,
              rules: [{ match: <prefix or /regex/>, action: allow | ask | deny }],
              defaultAction: allow | ask | deny,
              answerers: [mcp-elicitation, webhook],   (who is asked, in order)
              webhook: { url, secretFile, timeoutMs } }   (--approval-webhook)
  redact: { values, patterns, builtins, environment }   (secrets kept out of output)
  container: { image, host, mounts, network, egress, memory, cpus, pidsLimit, user,
               readOnlyRootfs, env, capabilities, noNewPrivileges, seccomp }
                                       (every session in its own container)
  audit: { file }            one JSON line per tool call (like --audit-log)
  telemetry: { includeCommand }        the redacted command on each span
  serve: { sessionLifetimeMs }         HTTP sessions end this long after they opened (--session-lifetime)
  serve: { console, operatorTokenFile } the operator console at /console (--console)
  kubernetes: { image, namespace, kubeconfig, context, env, mounts, resources, nodeSelector,
                tolerations, runtimeClassName, serviceAccountName, labels, annotations,
                podStartTimeoutMs, workspace, user, leaseSeconds, networkPolicy }
                                       (every session in its own pod: docs/kubernetes.md)
Flags override the file. Every key and default: docs/configuration.md in the
package; how to register this server with an MCP client: docs/mcp-server.md.

Examples:
  $ dsh-tools serve --workspace ~/project
  $ dsh-tools serve --shell persistent --config dsh.yaml
  $ dsh-tools serve --http 8765 --workspace .
  $ dsh-tools serve --http 8765 --host 0.0.0.0 --token-file /run/secrets/dsh-tokens
  $ dsh-tools serve --container my-image --workspace ~/project
  $ dsh-tools serve --kubernetes my-image --workspace /srv/project   (cluster of $KUBECONFIG)`;

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds * 1000 > MAX_TIMER_MS) {
    throw new InvalidArgumentError('expected seconds: a number from 0 (never) to 2147483');
  }
  return seconds;
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || !Number.isSafeInteger(count)) throw new InvalidArgumentError('expected a positive integer');
  return count;
}

interface ServeOptions extends ServeDeployOptions, ReapFlags, SharedSessionFlags, WarmPoolFlag, ConsoleFlags, ObserveFlags, ApprovalFlags, HeartbeatFlag, ServeConnectionFlags, LogFlags {
  readonly idleTimeout: number;
  readonly sessionLifetime?: number;
  readonly maxSessions: number;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('expected a TCP port 0-65535 (0 = any free port)');
  return port;
}

/**
 * `dsh-tools serve [--http <port>]`: the MCP server over the composed tools.
 * One host per process; resolves only after every session and the host are
 * disposed, then exits the process (the stdio transport keeps handles open).
 */
export function registerServeCommand(program: Command): void {
  const serve = program
    .command('serve')
    .description('run the MCP server over the composed tools (stdio, or Streamable HTTP with --http)')
    .option('--http <port>', 'serve Streamable HTTP on <--host>:<port> instead of stdio', parsePort)
    .option('--token-file <path>', 'HTTP: the bearer token(s): one token, name:token lines, or a directory of token files (default: $DSH_HTTP_TOKEN, else generated)')
    .option('--no-auth', 'HTTP: accept requests without a bearer token (any local user can then run commands)')
    .option('--idle-timeout <seconds>', 'HTTP: end a session, with its tasks, after this long without a request or open event stream (its shell goes earlier, after persistent.idleCloseMs) (0: never)', parseSeconds, 1800)
    .option('--session-lifetime <seconds>', 'HTTP: end every session, with its tasks, this long after it opened, busy or not (0: never; default 86400, or serve.sessionLifetimeMs)', parseSeconds)
    .option('--max-sessions <n>', 'HTTP: open sessions at most (at the cap the longest-idle one makes room)', parseCount, 64)
    .option('--audit-log <file>', 'append one JSON line per tool call to this file (created 0600)', parseAuditLog)
    .option('--metrics-port <port>', 'serve /metrics (Prometheus) on 127.0.0.1:<port>, without a token', parseMetricsPort)
    .option('--metrics-public', 'HTTP: /metrics answers without the bearer token')
    .option('--heartbeat-interval <seconds>', 'a progress notification at least this often while a call with a progress token runs quietly (0: none; default 15)', parseHeartbeatInterval);
  addWarmPoolOption(addSharedSessionOptions(addReapOption(addConsoleOptions(addApprovalOptions(addServeConnectionOptions(addServeDeployOptions(addLogOptions(serve))))))))
    .addHelpText('after', HELP_AFTER)
    .action(async (options: ServeOptions, command: Command) => {
      // Loaded on demand so `--help` and the other commands stay quick; the HTTP
      // transport only with --http.
      const [{ hostFromOptions }, { mcpApprovalModule, McpElicitationAnswerer }, { runUntilStopped }, { Logger }, { StderrLogger }] =
        await Promise.all([
          import('./host-from-options.js'),
          import('../mcp/approvals/elicitation-answerer.js'),
          import('../mcp/serve-lifecycle.js'),
          import('../providers/logging/logger.js'),
          import('../providers/logging/stderr-logger.js'),
        ]);
      checkObserveFlags(options, options.http !== undefined);
      let fileLifetimeMs: number | undefined;
      let fileConsole: ConsoleFileSettings | undefined;
      let sharedSessions = options.sharedSessions === true;
      const { host, workspace } = await hostFromOptions(command.optsWithGlobals<GlobalOptions>(), ({ serve: serveConfig, ...env }) => {
        fileLifetimeMs = serveConfig?.sessionLifetimeMs;
        fileConsole = serveConfig;
        sharedSessions ||= serveConfig?.sharedSessions === true;
        // The one serve setting the composition needs: sessions' sandboxes outlive this server.
        const composed = withWarmPool(sharedSessions ? { ...env, serve: { sharedSessions: true } } : env, options);
        return withApprovalFlags(withLogFlags(withObserveFlags(composed, options), options), options);
      });
      const logger = host.isBound(Logger) ? host.get(Logger) : new StderrLogger();
      const approvals = new McpElicitationAnswerer();
      let server: RunningServer;
      let token: { dispose(): void } | undefined;
      let metrics: { close(): Promise<void> } | undefined;
      let stopReaper: () => void = () => undefined;
      let shared: SharedSessions | undefined;
      try {
        checkServeDeployOptions(options);
        const { SessionRegistry } = await import('../providers/registry/session-registry.js');
        checkSharedSessionFlags({ ...options, sharedSessions }, options.http !== undefined, host.isBound(SessionRegistry));
        if (sharedSessions) shared = await startSharedSessions(host, logger, options.reapInterval, options.leaveSessions === true);
        const operatorConsole = consoleSettings(options, fileConsole, options.http !== undefined);
        stopReaper = await startReaper(host, logger, options.reapInterval);
        await host.load(mcpApprovalModule(approvals));
        await loadHeartbeat(host, options);
        // Before the transport: a port in use fails the start with nothing serving yet.
        metrics = await startMetricsPort(host, options, logger);
        const callGate = await callGateFrom(options, host, logger);
        const limits = callGate ? { callGate } : {};
        if (options.http === undefined) {
          const { serveStdio } = await import('../mcp/stdio-server.js');
          server = await serveStdio(host, { workspace, logger, approvals, ...limits });
        } else {
          const [{ serveHttp }, { resolveHttpToken }] = await Promise.all([import('../mcp/http-server.js'), import('../mcp/access/http-auth.js')]);
          const auth = options.auth ? resolveHttpToken({ tokenFile: options.tokenFile }) : 'none';
          // No command reads the tokens (docs/security.md#hidden-server-files).
          for (const file of [options.tokenFile, auth === 'none' ? undefined : auth.file]) hideServerFile(file);
          token = auth === 'none' ? undefined : auth;
          if (auth !== 'none' && auth.warning !== undefined) logger.warn(auth.warning);
          for (const note of auth === 'none' ? [] : (auth.notes ?? [])) logger.info(note);
          // Commands never see it (DSH_* is scrubbed from their environment); drop it here as well.
          delete process.env.DSH_HTTP_TOKEN;
          if (auth !== 'none' && auth.file !== undefined) {
            process.stderr.write(`dsh-tools: bearer token written to ${auth.file} (send "Authorization: Bearer <token>")\n`);
          }
          const consoleParts = operatorConsole && (await startConsole(host, operatorConsole.tokenFile, auth));
          const http = await serveHttp(host, {
            ...(consoleParts ? { console: consoleParts } : {}),
            workspace,
            port: options.http,
            host: options.host ?? '127.0.0.1',
            ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
            ...(options.trustedProxy ? { trustedProxies: options.trustedProxy } : {}),
            ...(options.maxSessionsPerCaller !== undefined ? { maxSessionsPerCaller: options.maxSessionsPerCaller } : {}),
            ...limits,
            logger,
            approvals,
            auth,
            idleTimeoutMs: options.idleTimeout * 1000,
            sessionLifetimeMs: options.sessionLifetime !== undefined ? options.sessionLifetime * 1000 : (fileLifetimeMs ?? 86_400_000),
            maxSessions: options.maxSessions,
            metricsPublic: options.metricsPublic === true,
            connectionLimits: connectionLimitsOf(options),
            ...(shared ? { registry: shared.registry, endShared: shared.endShared } : {}),
          });
          process.stderr.write(`dsh-tools: MCP server listening on ${http.url} (workspace ${workspace})\n`);
          if (consoleParts) process.stderr.write(`dsh-tools: operator console at ${http.url.replace(/\/mcp$/, '/console')}\n`);
          server = http;
        }
      } catch (error) {
        stopReaper();
        await shared?.abandon().catch(() => undefined);
        token?.dispose();
        await metrics?.close();
        await host.dispose();
        throw error;
      }
      const { reopenFileSinks } = await import('../providers/observability/reopen-sinks.js');
      const code = await runUntilStopped(server, host, logger, {
        drainTimeoutMs: options.drainTimeout * 1000,
        onHangup: () => reopenFileSinks(host, logger),
        ...(shared ? { beforeDispose: () => shared.stop() } : {}),
      });
      stopReaper();
      await metrics?.close();
      token?.dispose();
      process.exit(code);
    });
}
