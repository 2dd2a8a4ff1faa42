// A raw JSON-RPC driver for 2026-07-28 requests, over stdio (a RawStdioServer)
// or HTTP (rawRequest with the era's headers): each request carries its own
// envelope, with or without the tasks extension (io.modelcontextprotocol/tasks).
import { rawRequest } from './raw-http.js';
import type { RawStdioServer } from './raw-stdio.js';

export const MODERN = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const TASK_ID_SHAPE = /^dsh-t-[A-Za-z0-9_-]{43}$/;

export type Message = Record<string, unknown>;

export interface ModernRaw {
  /** Sends one request and resolves with the JSON-RPC message that answers it. */
  request(method: string, params: Record<string, unknown>, options?: RequestOptions): Promise<Message>;
}

export interface RequestOptions {
  /** Whether the request declares the tasks extension (default: it does). */
  readonly declare?: boolean;
  /** Further client capabilities of the request (form elicitation for an approval). */
  readonly capabilities?: Record<string, unknown>;
  /** The client's name in the envelope (default `raw-modern`). */
  readonly clientName?: string;
}

/** The per-request `_meta` envelope; `declare` puts the tasks extension in its capabilities. */
export function envelope(options: RequestOptions = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: options.clientName ?? 'raw-modern', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { ...options.capabilities, ...((options.declare ?? true) ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
  };
}

export function stdioDriver(server: RawStdioServer): ModernRaw {
  let next = 1000;
  return {
    request: (method, params, options = {}) => {
      const id = ++next;
      server.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(options) } });
      return server.answer(id, 60_000);
    },
  };
}

export function httpDriver(url: URL, token: string): ModernRaw {
  let next = 1000;
  return {
    request: async (method, params, options = {}) => {
      const id = ++next;
      // The routing headers the era asks for: the tool's name on tools/call, the task id on tasks/*.
      const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
      const reply = await rawRequest(url, {
        headers: {
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(options) } }),
      });
      return answerIn(reply.body, id);
    },
  };
}

/** The message answering `id` in a JSON body or an SSE stream. */
function answerIn(body: string, id: number): Message {
  const candidates = body.trimStart().startsWith('{')
    ? [body]
    : body.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5));
  for (const candidate of candidates) {
    const message = JSON.parse(candidate) as Message;
    if (message.id === id || (message.error !== undefined && (message.id ?? null) === null)) return message;
  }
  throw new Error(`no answer to request ${id} in ${body}`);
}

/** A bash call's params (`extra` joins the arguments: run_in_background, session, …). */
export function bashParams(command: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'bash', arguments: { command, description: 'Run a test command', ...extra } };
}

export function resultOf(message: Message): Record<string, unknown> {
  if (message.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(message)}`);
  return message.result as Record<string, unknown>;
}

/** The text of a CallToolResult's text blocks. */
export function callText(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/** Polls `tasks/get` at the interval the task suggests until its status is not `working`; the last answer. */
export async function pollUntilDone(raw: ModernRaw, taskId: string, limitMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const task = resultOf(await raw.request('tasks/get', { taskId }));
    if (task.status !== 'working' || Date.now() > deadline) return task;
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(task.pollIntervalMs ?? 200), 200)));
  }
}

/** The -32602 every unknown, foreign or guessed task id gets, as the 2025-11-25 tasks answer it. */
export function taskNotFound(taskId: string): { code: number; message: string } {
  return { code: -32602, message: `Failed to retrieve task: Task not found: ${JSON.stringify(taskId)}` };
}
