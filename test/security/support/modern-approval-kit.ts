// Shared by the approvals-modern-* attack suites: a real HTTP server (real
// bash, two named tokens) whose `touch` commands ask for approval, and raw
// 2026-07-28 `tools/call` requests, so a suite can send what a well-behaved
// client never would (another question's state, another caller's token, a
// changed command, an answer twice).
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../../src/container/create-host.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../../src/mcp/http-server.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../../src/mcp/approvals/elicitation-answerer.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { rawRequest } from '../../support/raw-http.js';

export const ALICE = 'alice-token-0123456789abcdef';
export const BOB = 'bob-token-0123456789abcdef00';
const MODERN = '2026-07-28';

export interface ModernApprovals {
  readonly dir: string;
  readonly answerer: McpElicitationAnswerer;
  /** Whether `name` exists in the workspace (an approved `touch name` ran). */
  made(name: string): boolean;
  /** One raw 2026-07-28 tools/call of `bash` with `command`; `retry` carries the round-trip fields. */
  call(token: string, command: string, retry?: { requestState?: unknown; inputResponses?: Record<string, unknown> }, capabilities?: object): Promise<CallReply>;
  stop(): Promise<void>;
}

/** What came back: a question (`input_required`) or a result's text. */
export interface CallReply {
  readonly resultType?: string;
  readonly requestState?: string;
  readonly inputRequests?: Record<string, { method: string; params: { message: string; requestedSchema: { properties: Record<string, { const?: string; default?: string }> } } }>;
  readonly text?: string;
  readonly isError?: boolean;
  readonly error?: { code: number; message: string };
}

let ids = 0;

export async function startModernApprovals(options: { timeoutMs?: number } = {}): Promise<ModernApprovals> {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-approvals-modern-')));
  const tokens = path.join(dir, '.tokens');
  writeFileSync(tokens, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
  const host: DshHost = await createHost(
    ...localEnvironment({ workspace: dir, approval: { rules: [{ match: 'touch', action: 'ask', name: 'writes' }], ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) } }),
  );
  const answerer = new McpElicitationAnswerer();
  await host.load(mcpApprovalModule(answerer));
  const server: RunningHttpServer = await serveHttp(host, { workspace: dir, port: 0, auth: resolveHttpToken({ tokenFile: tokens, env: {} }), approvals: answerer });
  const url = new URL(server.url);
  return {
    dir,
    answerer,
    made: (name) => existsSync(path.join(dir, name)),
    async call(token, command, retry = {}, capabilities = { elicitation: { form: {} } }) {
      const id = ++ids;
      const params = {
        name: 'bash',
        arguments: { command, description: 'Write a file' },
        ...retry,
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities },
      };
      const reply = await rawRequest(url, {
        headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'bash' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
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

/** The JSON-RPC answer, from a JSON body or the last `data:` line of an event stream. */
function replyOf(body: string): CallReply {
  const json = body.trimStart().startsWith('{') ? body : (body.split('\n').filter((line) => line.startsWith('data:')).pop() ?? '').slice(5);
  const message = JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  if (message.error) return { error: message.error };
  const result = message.result ?? {};
  const content = result.content as Array<{ text?: string }> | undefined;
  return {
    ...(typeof result.resultType === 'string' ? { resultType: result.resultType } : {}),
    ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
    ...(result.inputRequests ? { inputRequests: result.inputRequests as CallReply['inputRequests'] } : {}),
    ...(content ? { text: content.map((block) => block.text ?? '').join('') } : {}),
    ...(result.isError !== undefined ? { isError: result.isError as boolean } : {}),
  };
}

/** The one question of an `input_required` reply: its key and message. */
export function questionOf(reply: CallReply): { key: string; message: string } {
  const entries = Object.entries(reply.inputRequests ?? {});
  expect(entries).toHaveLength(1);
  const [key, request] = entries[0]!;
  expect(request.method).toBe('elicitation/create');
  return { key, message: request.params.message };
}

export const ACCEPT = { action: 'accept', content: {} };
