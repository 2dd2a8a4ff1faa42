import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A receiver's answer larger than this is refused unread (an answer is a few hundred bytes). */
const MAX_ANSWER_BYTES = 64 * 1024;

interface WebhookResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * POSTs `body` to `url` and reads the answer: never follows a redirect (a
 * 3xx is the receiver's answer, refused by the caller), reads at most
 * `MAX_ANSWER_BYTES`, and gives up after `timeoutMs` or when `signal`
 * fires. Every failure rejects with a reason an operator can act on.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<WebhookResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (error: Error | undefined, response?: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(response!);
    };
    const onAbort = () => finish(new Error('webhook: the approval was withdrawn before the receiver answered'));
    const timer = setTimeout(() => finish(new Error(`webhook: no answer within ${timeoutMs} ms (approval.webhook.timeoutMs)`)), timeoutMs);
    const req = send(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(new Error(`webhook: cannot reach ${target.origin} (${error.code ?? error.message})`)));
    req.on('response', (res) => {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) {
        return finish(new Error(`webhook: answer body over ${MAX_ANSWER_BYTES} bytes`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) return finish(new Error(`webhook: answer body over ${MAX_ANSWER_BYTES} bytes`));
        chunks.push(chunk);
      });
      res.on('error', (error) => finish(new Error(`webhook: the answer broke off (${error.message})`)));
      res.on('close', () => finish(new Error('webhook: the answer broke off before its end')));
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}
