import { InvalidArgumentError, type Command } from 'commander';
import { statSync } from 'node:fs';
import type { RunningServer } from '../mcp/stdio-server.js';
import type { GlobalOptions } from './cli-options.js';

const HELP_AFTER = `
Transports:
  stdio (default)     one MCP connection on stdin/stdout; stdout carries only
                      protocol, logs go to stderr. Closing stdin stops the server.
  --http <port>       Streamable HTTP at http://127.0.0.1:<port>/mcp (loopback
                      only; port 0 picks a free port, printed on stderr). Each
                      MCP session is its own agent session.

Each connection is one agent session: cwd = --workspace, its own background
tasks and persistent shell, all disposed when the connection closes. SIGINT,
SIGTERM or end of stdin dispose every session and leave no process behind.

Composition file (--config, YAML or JSON; unknown keys are errors):
  workspace: .               session cwd (relative to the file)
  shell: oneshot             or persistent (one PTY shell per session)
  logLevel: warn             debug | info | warn | error (stderr)
  dshHome: ~/.dsh            exported to commands as DSH_HOME
  executor: { timeoutMs, maxTimeoutMs, maxOutputBytes, maxSpillBytes,
              maxRetainedSpillBytes, graceMs, allowEnv, keepSpills }
  tasks: { maxConcurrentTasksPerOwner, maxFinishedTasksPerOwner }
  bash: { enableRunInBackground }
  persistent: { backendType, timeoutMs, maxOutputChars, description }
  env: { <contributor>: { DSH_NAME: value } }
  sandbox: { mode, network, fallbackRoot, bwrapPath }   (selects the bwrap sandbox)
  approval: { policy: ask | never, maxAuditRecords,
              rules: [{ match: <prefix or /regex/>, action: allow | ask | deny }],
              defaultAction: allow | ask | deny }
Flags override the file. Every key and default is in the README
("Configuration"), with how to register this server with an MCP client.

Examples:
  $ dsh-tools serve --workspace ~/project
  $ dsh-tools serve --shell persistent --config dsh.yaml
  $ dsh-tools serve --http 8765 --workspace .`;

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
  program
    .command('serve')
    .description('run the MCP server over the composed tools (stdio, or Streamable HTTP on 127.0.0.1 with --http)')
    .option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:<port> instead of stdio', parsePort)
    .addHelpText('after', HELP_AFTER)
    .action(async (options: { http?: number }, command: Command) => {
      // Loaded on demand so `--help` and the other commands stay quick.
      const [{ hostFromOptions }, { mcpApprovalModule, McpElicitationAnswerer }, { serveHttp }, { runUntilStopped }, { serveStdio }, { Logger }, { StderrLogger }] =
        await Promise.all([
          import('./host-from-options.js'),
          import('../mcp/elicitation-answerer.js'),
          import('../mcp/http-server.js'),
          import('../mcp/serve-lifecycle.js'),
          import('../mcp/stdio-server.js'),
          import('../providers/logging/logger.js'),
          import('../providers/logging/stderr-logger.js'),
        ]);
      const { host, workspace } = await hostFromOptions(command.optsWithGlobals<GlobalOptions>());
      const logger = host.isBound(Logger) ? host.get(Logger) : new StderrLogger();
      const approvals = new McpElicitationAnswerer();
      let server: RunningServer;
      try {
        // Every call of every session would fail in a missing workspace: refuse to start instead.
        if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
          throw new Error(`the workspace ${workspace} is not a directory (check --workspace or the config file)`);
        }
        await host.load(mcpApprovalModule(approvals));
        if (options.http === undefined) {
          server = await serveStdio(host, { workspace, logger, approvals });
        } else {
          const http = await serveHttp(host, { workspace, port: options.http, logger, approvals });
          process.stderr.write(`dsh-tools: MCP server listening on ${http.url} (workspace ${workspace})\n`);
          server = http;
        }
      } catch (error) {
        await host.dispose();
        throw error;
      }
      const code = await runUntilStopped(server, host, logger);
      process.exit(code);
    });
}
