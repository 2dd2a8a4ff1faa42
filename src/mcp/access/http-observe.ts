import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DshHost } from '../../container/dsh-host.js';
import type { Logger } from '../../providers/logging/logger.js';
import { auditEvent } from '../../providers/observability/audit-events.js';
import { HostMetrics } from '../../providers/observability/host-metrics.js';

/** Answers an operator wants to see one line for: refusals of who may call, where, or how many. */
const REFUSALS: Readonly<Record<number, string>> = {
  401: 'authentication failed',
  403: 'request refused (Host/Origin)',
  404: 'not found',
  503: 'refused: at a cap or draining',
};

/**
 * Counts every answer of the HTTP listener by status
 * (`dsh_http_requests_total{code}`), failed authentications
 * (`dsh_auth_failures_total`), and logs each refusal as one structured line
 * (`warn` for a failed authentication, `info` for the others) and one audit
 * record (`AuditEvent`): the peer, the method and the path, never a header's
 * value (a token or session id).
 */
export function observeHttpAnswer(host: DshHost, req: IncomingMessage, res: ServerResponse, peer: string | undefined, logger?: Logger): void {
  res.once('finish', () => {
    const code = res.statusCode;
    const metrics = host.isBound(HostMetrics) ? host.get(HostMetrics) : undefined;
    metrics?.update((m) => {
      m.httpRequests.inc({ code: String(code) });
      if (code === 401) m.authFailures.inc();
    });
    const what = REFUSALS[code];
    if (what === undefined) return;
    const fields = { event: code === 401 ? ('auth_failure' as const) : ('http_refused' as const), status: code, method: req.method ?? '', path: pathOf(req), peer: peer ?? null };
    void auditEvent(host, { ...fields, time: new Date().toISOString() }, logger);
    if (!logger) return;
    if (code === 401) logger.warn(`mcp http: ${what}`, { ...fields, credentials: req.headers.authorization === undefined ? 'none' : 'wrong' });
    else logger.info(`mcp http: ${what}`, fields);
  });
}

/** The path without the query (a query could carry anything). */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const cut = url.indexOf('?');
  return (cut < 0 ? url : url.slice(0, cut)).slice(0, 200);
}
