// A real HTTP server (real bash) whose `touch` commands ask for approval, for
// the suites about calls that wait for an answer between two 2026-07-28
// requests: raw `tools/call`s that carry a session handle, the question left
// unanswered as long as a test wants, and the server's session log lines.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../../src/container/create-host.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import { serveHttp, type HttpServeOptions, type RunningHttpServer } from '../../../src/mcp/http-server.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../../src/mcp/approvals/elicitation-answerer.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { rawRequest } from '../../support/raw-http.js';

export const ALICE = 'alice-token-0123456789abcdef';
export const MALLORY = 'mallory-token-0123456789abcd';
const MODERN = '2026-07-28';

/** What a call came back with: a question or a result's text. */
export interface Reply {
  readonly question?: { readonly key: string; readonly state: string };
  readonly text?: string;
}

export interface WaitsServer {
  readonly dir: string;
  readonly answerer: McpElicitationAnswerer;
  /** The server's info log lines so far. */
  readonly logged: string[];
  /** One raw 2026-07-28 `bash` call as `token` (in `session` when given); `answer` retries a question with accept. */
  bash(token: string, command: string, options?: { session?: string; answer?: Reply['question']; tool?: 'bash' | 'bash_persistent' }): Promise<Reply>;
  made(name: string): boolean;
  stop(): Promise<void>;
}

let ids = 0;

export async function startWaitsServer(
  options: Partial<HttpServeOptions> & { approvalTimeoutMs?: number; idleCloseMs?: number },
): Promise<WaitsServer> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-waits-')));
  const tokens = path.join(dir, '.tokens');
  writeFileSync(tokens, `alice:${ALICE}\nmallory:${MALLORY}\n`, { mode: 0o600 });
  const { approvalTimeoutMs, idleCloseMs, ...serve } = options;
  const host: DshHost = await createHost(
    ...localEnvironment({
      workspace: dir,
      shell: 'both',
      ...(idleCloseMs !== undefined ? { persistent: { idleCloseMs } } : {}),
      approval: { rules: [{ match: 'touch', action: 'ask', name: 'writes' }], ...(approvalTimeoutMs ? { timeoutMs: approvalTimeoutMs } : {}) },
    }),
  );
  const answerer = new McpElicitationAnswerer();
  await host.load(mcpApprovalModule(answerer));
  const logged: string[] = [];
  const logger = { debug: () => undefined, info: (line: string) => void logged.push(line), warn: () => undefined, error: () => undefined };
  const server: RunningHttpServer = await serveHttp(host, {
    workspace: dir,
    port: 0,
    auth: resolveHttpToken({ tokenFile: tokens, env: {} }),
    approvals: answerer,
    logger,
    ...serve,
  });
  const url = new URL(server.url);
  return {
    dir,
    answerer,
    logged,
    made: (name) => existsSync(path.join(dir, name)),
    async bash(token, command, { session, answer, tool = 'bash' } = {}) {
      const params = {
        name: tool,
        arguments: { command, description: 'Run a test command', ...(session ? { session } : {}) },
        ...(answer ? { requestState: answer.state, inputResponses: { [answer.key]: { action: 'accept', content: {} } } } : {}),
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'waits', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
      };
      const reply = await rawRequest(url, {
        headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method: 'tools/call', params }),
      });
      return replyOf(reply.body);
    },
    async stop() {
      await server.close();
      await host.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function replyOf(body: string): Reply {
  const json = body.trimStart().startsWith('{') ? body : (body.split('\n').filter((line) => line.startsWith('data:')).pop() ?? '').slice(5);
  const message = JSON.parse(json) as { result?: Record<string, unknown>; error?: { message: string } };
  if (message.error) return { text: `JSON-RPC error: ${message.error.message}` };
  const result = message.result ?? {};
  if (result.resultType === 'input_required') {
    const [key] = Object.keys(result.inputRequests as object);
    return { question: { key: key!, state: result.requestState as string } };
  }
  return { text: (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('') };
}

/** The handle a result names (`[session: dsh-s-… — …]`). */
export function handleOf(reply: Reply): string {
  const handle = /\[session: (dsh-s-[A-Za-z0-9_-]{43}) /.exec(reply.text ?? '')?.[1];
  if (handle === undefined) throw new Error(`no handle in: ${reply.text}`);
  return handle;
}
