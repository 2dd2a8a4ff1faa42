import { setTimeout as sleep } from 'node:timers/promises';
import { httpStatus } from './kube-errors.js';

/** How long API calls are retried through an outage of an API server that answered before (docs/kubernetes.md#api-outages). */
const API_RETRY_MS = 30_000;

/** The request never reached the API server: safe to send again whatever it does. */
const NOT_DELIVERED = ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];
/** The connection broke or the server was briefly unable: safe to repeat for a request that changes nothing twice. */
const BROKEN = ['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'socket hang up', 'timed out'];
/** Not 500: the API server answers an exec into a stopped container with it, and that is an answer. */
const UNAVAILABLE = new Set([429, 502, 503, 504]);

/**
 * Whether `error` is an API outage rather than an answer. `repeatable`: the
 * request may be sent twice (a read, an exec, a delete); a create is retried
 * only when it never left this machine, so a pod is never made twice.
 */
export function isTransient(error: unknown, repeatable: boolean): boolean {
  const text = describeChain(error);
  if (NOT_DELIVERED.some((code) => text.includes(code))) return true;
  if (!repeatable) return false;
  const status = httpStatus(error) ?? Number(/Unexpected server response: (\d+)/.exec(text)?.[1]);
  return UNAVAILABLE.has(status) || BROKEN.some((code) => text.includes(code));
}

/**
 * Runs `attempt` again through a transient outage, with a growing pause (0.2
 * to 2 s), for at most `windowMs`; the last error stands after that, and any
 * other error at once.
 */
export async function retryTransient<T>(attempt: () => Promise<T>, repeatable: boolean, windowMs = API_RETRY_MS): Promise<T> {
  const started = Date.now();
  for (let pause = 200; ; pause = Math.min(pause * 2, 2000)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error, repeatable) || Date.now() - started + pause > windowMs) throw error;
      await sleep(pause, undefined, { ref: false });
    }
  }
}

function describeChain(error: unknown): string {
  const parts: string[] = [];
  // `cause` chains, and a ws ErrorEvent's `error`.
  for (let e = error as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown; error?: unknown } | undefined, depth = 0; e && depth < 4; e = (e.cause ?? e.error) as typeof e, depth++) {
    parts.push(String(e.code ?? ''), String(e.errno ?? ''), String(e.message ?? e));
  }
  return parts.join(' ');
}
