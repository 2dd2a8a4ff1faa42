// A real HTTP server (real bash, three named tokens) whose `touch` commands
// ask for approval, driven with raw 2026-07-28 `tools/call`s (raw-modern.ts):
// for the suites about questions between two requests — a call that waits
// with a session handle, and what a well-behaved client never sends (another
// question's state, another caller's token, a changed command, an answer twice).
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type HttpServeOptions, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { httpDriver, type Message } from './raw-modern.js';

export const ALICE = 'alice-token-0123456789abcdef';
export const BOB = 'bob-token-0123456789abcdef00';
export const MALLORY = 'mallory-token-0123456789abcd';

/** A waiting call's view of an answer: the question to retry with, or the result's text. */
export interface Reply {
  readonly question?: { readonly key: string; readonly state: string };
  readonly text?: string;
}

/** An attacker's view of an answer: every round-trip field as it came. */
export interface CallReply {
  readonly resultType?: string;
  readonly requestState?: string;
  readonly inputRequests?: Record<string, { method: string; params: { message: string; requestedSchema: { properties: Record<string, { const?: string; default?: string }> } } }>;
  readonly text?: string;
  readonly isError?: boolean;
  readonly error?: { code: number; message: string };
}

export interface AskingServer {
  readonly dir: string;
  readonly answerer: McpElicitationAnswerer;
  /** The server's info log lines so far. */
  readonly logged: string[];
  /** Whether `name` exists in the workspace (an approved `touch name` ran). */
  made(name: string): boolean;
  /** One `bash` call as `token` (in `session` when given); `answer` retries a question with accept. */
  bash(token: string, command: string, options?: { session?: string; answer?: Reply['question']; tool?: 'bash' | 'bash_persistent' }): Promise<Reply>;
  /** One `bash` call as `token` with `command`; `retry` carries the round-trip fields as given. */
  call(token: string, command: string, retry?: { requestState?: unknown; inputResponses?: Record<string, unknown> }, capabilities?: object): Promise<CallReply>;
  stop(): Promise<void>;
}

export interface AskingOptions extends Partial<HttpServeOptions> {
  readonly shell?: 'oneshot' | 'both';
  readonly approvalTimeoutMs?: number;
  readonly idleCloseMs?: number;
  /** A workspace to serve (replicas of one test share it); kept at stop. Default: a fresh one, removed at stop. */
  readonly workspace?: string;
}

const FORM = { elicitation: { form: {} } };

export async function startAskingServer(options: AskingOptions = {}): Promise<AskingServer> {
  const { shell, approvalTimeoutMs, idleCloseMs, workspace, ...serve } = options;
  const dir = workspace ?? realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-asking-')));
  const tokens = path.join(dir, '.tokens');
  writeFileSync(tokens, `alice:${ALICE}\nbob:${BOB}\nmallory:${MALLORY}\n`, { mode: 0o600 });
  const host: DshHost = await createHost(
    ...localEnvironment({
      workspace: dir,
      ...(shell ? { shell } : {}),
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
  const send = (token: string, params: Record<string, unknown>, clientName: string, capabilities: object = FORM) =>
    httpDriver(url, token).request('tools/call', params, { declare: false, capabilities: capabilities as Record<string, unknown>, clientName });
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
      };
      return replyOf(await send(token, params, 'waits'));
    },
    async call(token, command, retry = {}, capabilities = FORM) {
      return callReplyOf(await send(token, { name: 'bash', arguments: { command, description: 'Write a file' }, ...retry }, 'attacker', capabilities));
    },
    async stop() {
      await server.close();
      await host.dispose();
      if (workspace === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function replyOf(message: Message): Reply {
  if (message.error) return { text: `JSON-RPC error: ${(message.error as { message: string }).message}` };
  const result = (message.result ?? {}) as Record<string, unknown>;
  if (result.resultType === 'input_required') {
    const [key] = Object.keys(result.inputRequests as object);
    return { question: { key: key!, state: result.requestState as string } };
  }
  return { text: (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('') };
}

function callReplyOf(message: Message): CallReply {
  if (message.error) return { error: message.error as CallReply['error'] & object };
  const result = (message.result ?? {}) as Record<string, unknown>;
  const content = result.content as Array<{ text?: string }> | undefined;
  return {
    ...(typeof result.resultType === 'string' ? { resultType: result.resultType } : {}),
    ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
    ...(result.inputRequests ? { inputRequests: result.inputRequests as CallReply['inputRequests'] } : {}),
    ...(content ? { text: content.map((block) => block.text ?? '').join('') } : {}),
    ...(result.isError !== undefined ? { isError: result.isError as boolean } : {}),
  };
}

/** The handle a result names (`[session: dsh-s-… — …]`). */
export function handleOf(reply: Reply): string {
  const handle = /\[session: (dsh-s-[A-Za-z0-9_-]{43}) /.exec(reply.text ?? '')?.[1];
  if (handle === undefined) throw new Error(`no handle in: ${reply.text}`);
  return handle;
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
