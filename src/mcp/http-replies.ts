import type { IncomingMessage, ServerResponse } from 'node:http';

/** An initialize (or any request the server reads itself) larger than this is refused. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The request body as JSON; undefined when it is not JSON or over 1 MiB. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the cap the rest is read and dropped (never kept), so the client gets the reply instead of a reset.
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function reply(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(`${text}\n`);
}

export function replyJsonRpc(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

/** The id of a single JSON-RPC request body, for the error answering it. */
export function requestIdOf(body: unknown): string | number | null {
  const id = Array.isArray(body) || body === null || typeof body !== 'object' ? undefined : (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** True when the body holds a JSON-RPC request (something the server must answer), not only responses or notifications. */
export function carriesRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.some((message) => message !== null && typeof message === 'object' && 'method' in message && 'id' in message);
}
