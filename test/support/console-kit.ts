// A real HTTP server with the operator console, in this process: a real host
// (local or sandboxed composition, real bash), the listener of `serve --http
// --console`, callers alice and bob, operator oscar. Its `api` speaks to
// /console with whatever token and headers a test gives.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import { mcpApprovalModule, McpElicitationAnswerer } from '../../src/mcp/approvals/elicitation-answerer.js';
import { loadConsole } from '../../src/mcp/console/console-module.js';
import { resolveOperatorTokens } from '../../src/mcp/console/operator-tokens.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import type { PluginModule } from '../../src/core/plugin-module.js';
import type { ConsoleParts } from '../../src/mcp/console/console-module.js';

export const CALLER_TOKENS = { alice: 'alice-caller-token-0123456789', bob: 'bob-caller-token-0123456789ab' } as const;
export const OPERATOR_TOKEN = 'oscar-operator-token-0123456789';

export interface ConsoleRig {
  readonly host: DshHost;
  readonly server: RunningHttpServer;
  readonly dir: string;
  readonly parts: ConsoleParts;
  /** Resolves when the next approval is waiting in the console (or at once if one is). */
  nextPending(): Promise<string>;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  api(pathname: string, options?: { token?: string | null; method?: string; body?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Writes a 0600 token file of `name:token` lines into `dir`. */
export function tokenFile(dir: string, name: string, tokens: Record<string, string>): string {
  const file = path.join(dir, name);
  writeFileSync(file, Object.entries(tokens).map(([caller, token]) => `${caller}:${token}\n`).join(''), { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** The console over a host built from `environment(dir)` (its workspace is `dir`). */
export async function consoleRig(environment: (dir: string) => PluginModule[]): Promise<ConsoleRig> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-console-'));
  const host = await createHost(...environment(dir));
  const elicitation = new McpElicitationAnswerer();
  await host.load(mcpApprovalModule(elicitation));
  const auth = resolveHttpToken({ tokenFile: tokenFile(dir, 'callers', CALLER_TOKENS) });
  const operators = resolveOperatorTokens(tokenFile(dir, 'operators', { oscar: OPERATOR_TOKEN }), auth);
  const parts = await loadConsole(host);
  const server = await serveHttp(host, { workspace: dir, port: 0, auth, approvals: elicitation, console: { ...parts, operators } });
  const origin = new URL(server.url).origin;
  return {
    host,
    server,
    dir,
    origin,
    parts,
    nextPending: () =>
      new Promise((resolve) => {
        const first = parts.answerer.pending()[0];
        if (first) return resolve(first.id);
        const stop = parts.answerer.onChange(() => {
          const waiting = parts.answerer.pending()[0];
          if (!waiting) return;
          stop();
          resolve(waiting.id);
        });
      }),
    api: (pathname, options = {}) => {
      const token = options.token === undefined ? OPERATOR_TOKEN : options.token;
      const headers = { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...options.headers };
      return fetch(new URL(pathname, origin), { method: options.method ?? 'GET', headers, ...(options.body === undefined ? {} : { body: options.body }) });
    },
    close: async () => {
      await server.close();
      await host.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
