import type { IncomingMessage, ServerResponse } from 'node:http';

/*
 * The 2.x SDK's HTTP side speaks web-standard `Request`/`Response`; the
 * server is `node:http`. These two functions are the whole bridge: the body
 * is read (and checked) by the server first, so it is passed as text, and a
 * streamed (SSE) response is piped until either side ends.
 */

/** `req` as a web `Request` with `body` (already read); its signal aborts when the client goes away. */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, body?: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const method = req.method ?? 'GET';
  return new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), {
    method,
    headers,
    signal: gone.signal,
    ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
  });
}

/** Writes `response` to `res`, streaming its body; stops reading when the client closes. */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    const had = headers[name];
    headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (!res.write(chunk.value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) break;
    }
  } catch {
    // The stream was cancelled (client gone) or the transport closed it: nothing more to write.
  } finally {
    res.off('close', stop);
    res.end();
  }
}
