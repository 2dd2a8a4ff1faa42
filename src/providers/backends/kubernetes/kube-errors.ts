/** Network failures that mean the API server cannot be reached at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN', 'EPIPE']);

/** The HTTP status of a failed API call (client-node's ApiException carries it as `code`). */
export function httpStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The API server's own words: the `message` of the Status body it sent. */
function statusMessage(error: unknown): string | undefined {
  const body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      return (JSON.parse(body) as { message?: string }).message;
    } catch {
      return body.trim() || undefined;
    }
  }
  if (body !== null && typeof body === 'object') return (body as { message?: string }).message;
  return undefined;
}

function networkCode(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown; errno?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && UNREACHABLE.has(e.code)) return e.code;
    if (typeof e.errno === 'string' && UNREACHABLE.has(e.errno)) return e.errno;
  }
  const text = String((error as Error | undefined)?.message ?? error);
  return [...UNREACHABLE].find((code) => text.includes(code));
}

/**
 * A model-readable cause for a failed API call: the server unreachable, the
 * credentials refused, RBAC (the API server's message names the verb and
 * resource), a quota, or the API server's own message.
 */
export function describeKubeError(error: unknown, server: string, doing?: string): string {
  const code = networkCode(error);
  if (code !== undefined) return `Kubernetes API server unreachable at ${server} (${code})`;
  const status = httpStatus(error);
  const said = statusMessage(error);
  if (status === 401) return `the Kubernetes API server at ${server} refused the credentials (401 Unauthorized): check the kubeconfig's user`;
  if (status === 403 && said !== undefined && /exceeded quota|must specify limits|forbidden: .*quota/i.test(said)) {
    return `the namespace's ResourceQuota refuses the pod: ${said}`;
  }
  if (status === 403) return `forbidden by RBAC${doing === undefined ? '' : ` (${doing})`}: ${said ?? 'the API server gave no reason'}`;
  if (said !== undefined) return said;
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] || message;
}
