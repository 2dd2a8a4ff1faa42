import type { ServerResponse } from 'node:http';

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
