import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleSources } from './console-views.js';

/** The state is looked at this often for changes nobody announces (a task's output, a session's last activity). */
const TICK_MS = 1000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * `GET /console/api/events`: server-sent events for the page, which reads
 * them with fetch (its token goes in a header, which EventSource cannot
 * send). `state` (sessions and pending approvals) when it changed — at once
 * when an approval arrives or is answered, else within a second —, and
 * `audit` with each new audit entry. The stream ends with the request.
 */
export function streamConsoleEvents(
  req: IncomingMessage,
  res: ServerResponse,
  sources: ConsoleSources,
  state: () => unknown,
  headers: Readonly<Record<string, string>>,
): void {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
  let last = '';
  const push = (event: string, data: string) => res.write(`event: ${event}\ndata: ${data}\n\n`);
  const sendState = () => {
    const now = JSON.stringify(state());
    if (now === last) return;
    last = now;
    push('state', now);
  };
  sendState();
  const tick = setInterval(sendState, TICK_MS);
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const stopApprovals = sources.answerer.onChange(sendState);
  const stopAudit = sources.feed.onEntry((entry) => push('audit', JSON.stringify(entry)));
  const stop = () => {
    clearInterval(tick);
    clearInterval(keepalive);
    stopApprovals();
    stopAudit();
  };
  req.once('close', stop);
  res.once('close', stop);
}
