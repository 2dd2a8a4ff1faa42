import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditEvent } from '../../providers/observability/audit-events.js';
import { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { authorizationOf, type HttpToken } from '../access/http-auth.js';
import { readBody } from '../transport/http-body.js';
import { loadConsoleAssets, type ConsoleAsset } from './console-assets.js';
import { streamConsoleEvents } from './console-events.js';
import { approvalsView, auditView, sessionDetail, sessionsView, type ConsoleSources } from './console-views.js';

/** Where the console answers (`serve --http --console`). */
const CONSOLE_PATH = '/console';
const API = `${CONSOLE_PATH}/api/`;
/** An operator's answer is a few bytes of JSON. */
const ACTION_BODY_BYTES = 4096;

/** Every console answer: nothing inline runs, nothing frames it, nothing leaks through a Referer. */
const SAFETY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
});

/** What the HTTP server hands the console besides its data. */
interface ConsoleHttpOptions {
  readonly operators: HttpToken;
  /** Why the request's Host/Origin, or its peer (a command of this server), is refused; undefined when it passes. */
  readonly refusal: (req: IncomingMessage) => Promise<string | undefined>;
  /** Tells the connection guard a request carried a valid token. */
  readonly authenticated: (req: IncomingMessage) => void;
}

export function isConsolePath(pathname: string): boolean {
  return pathname === CONSOLE_PATH || pathname.startsWith(`${CONSOLE_PATH}/`);
}

function send(res: ServerResponse, status: number, body: string | Buffer, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SAFETY_HEADERS, 'content-type': type, ...headers }).end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json; charset=utf-8');
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  send(res, status, `${text}\n`, 'text/plain; charset=utf-8', headers);
}

/**
 * The operator console (docs/operations.md, "Operator console"): the page's
 * three static files, and a JSON API and event stream under `/console/api/`
 * that answer only an operator token in `Authorization: Bearer` (never a
 * cookie, never a caller's token: 401). A command of this server is refused
 * (the peer check of `/mcp`), and so is a Host or Origin that is not this
 * server's. A change (answering an approval, killing a task) also needs a
 * same-origin `Origin` when one is sent, and is audited with the operator's name.
 */
export class ConsoleHttp {
  private readonly assets: ReadonlyMap<string, ConsoleAsset>;

  constructor(
    private readonly sources: ConsoleSources,
    private readonly options: ConsoleHttpOptions,
  ) {
    this.assets = loadConsoleAssets();
  }

  async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const refusal = await this.options.refusal(req);
    if (refusal !== undefined) return sendText(res, 403, refusal);
    const sub = url.pathname.slice(CONSOLE_PATH.length);
    const asset = this.assets.get(sub);
    if (asset) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed', { allow: 'GET, HEAD' });
      return send(res, 200, req.method === 'HEAD' ? '' : asset.body, asset.type);
    }
    if (!url.pathname.startsWith(API)) return sendText(res, 404, `not found: the operator console is ${CONSOLE_PATH}`);
    const operator = this.options.operators.callerOf(authorizationOf(req));
    if (operator === undefined) {
      res.shouldKeepAlive = false;
      return sendText(res, 401, 'unauthorized: the console needs an operator token (Authorization: Bearer <token>)', { 'www-authenticate': 'Bearer realm="dsh-console"' });
    }
    this.options.authenticated(req);
    const route = routeOf(url.pathname.slice(API.length));
    if (route === undefined) return sendText(res, 400, 'bad request: the path is not valid percent-encoding');
    if (req.method === 'GET') return this.read(req, res, route, url, operator);
    if (req.method !== 'POST') return sendText(res, 405, 'method not allowed', { allow: 'GET, POST' });
    const crossOrigin = crossOriginOf(req);
    if (crossOrigin !== undefined) return sendText(res, 403, `forbidden: Origin "${crossOrigin}" is not this console's`);
    return this.change(req, res, route, operator);
  }

  private read(req: IncomingMessage, res: ServerResponse, route: string[], url: URL, operator: string): void {
    const [first, second] = route;
    if (route.length === 1 && first === 'state') return sendJson(res, 200, this.state(operator));
    if (route.length === 1 && first === 'events') return streamConsoleEvents(req, res, this.sources, () => this.state(operator), SAFETY_HEADERS);
    if (route.length === 1 && first === 'audit') {
      const filter = Object.fromEntries(['caller', 'session', 'outcome'].flatMap((key) => (url.searchParams.get(key) ? [[key, url.searchParams.get(key)!]] : [])));
      return sendJson(res, 200, auditView(this.sources, filter));
    }
    if (route.length === 2 && first === 'sessions' && second !== undefined) {
      const detail = sessionDetail(this.sources, second);
      return detail ? sendJson(res, 200, detail) : sendText(res, 404, `no live session ${JSON.stringify(second)}`);
    }
    return sendText(res, 404, 'not found: no such console API');
  }

  private async change(req: IncomingMessage, res: ServerResponse, route: string[], operator: string): Promise<void> {
    const body = await readBody(req, ACTION_BODY_BYTES);
    if (body === undefined) return sendText(res, 413, `request body too large: at most ${ACTION_BODY_BYTES} bytes`);
    const [first, id, third, taskId, fifth] = route;
    if (route.length === 2 && first === 'approvals' && id !== undefined) {
      const verdict = verdictOf(body);
      if (verdict === undefined) return sendText(res, 400, 'bad request: the body must be {"verdict": "approve"} or {"verdict": "deny"}');
      const result = this.sources.answerer.decide(id, verdict, operator);
      if (result === 'unknown') return sendText(res, 404, `approval ${JSON.stringify(id)} is not waiting (answered, withdrawn or timed out)`);
      return sendJson(res, 200, { approval: id, verdict, operator });
    }
    if (route.length === 5 && first === 'sessions' && id !== undefined && third === 'tasks' && taskId !== undefined && fifth === 'kill') {
      return this.kill(res, id, taskId, operator);
    }
    return sendText(res, 404, 'not found: no such console API');
  }

  private async kill(res: ServerResponse, sessionId: string, taskId: string, operator: string): Promise<void> {
    const live = this.sources.sessions().find(({ activity }) => activity.session.id === sessionId && !activity.session.disposed);
    const runtime = this.sources.host.isBound(TaskRuntime) ? this.sources.host.get(TaskRuntime) : undefined;
    const killed = live && runtime ? await runtime.kill(live.activity.session, taskId, `killed by operator ${operator} in the console`, 'operator') : undefined;
    if (!live || !killed) return sendText(res, 404, `no task ${JSON.stringify(taskId)} in a live session ${JSON.stringify(sessionId)}`);
    const result = killed.alreadyFinished ? 'already finished' : 'killed';
    if (!killed.alreadyFinished) live.activity.session.notify(`[task ${taskId} was killed by operator "${operator}" in the operator console]`);
    const time = new Date().toISOString();
    await auditEvent(this.sources.host, { event: 'operator_action', time, operator, action: 'kill_task', session: sessionId, caller: live.caller ?? null, taskId, result });
    return sendJson(res, 200, { task: taskId, result, operator });
  }

  private state(operator: string) {
    return { operator, sessions: sessionsView(this.sources), approvals: approvalsView(this.sources) };
  }
}

function routeOf(path: string): string[] | undefined {
  try {
    return path.split('/').map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
}

function verdictOf(body: string): 'approve' | 'deny' | undefined {
  try {
    const verdict: unknown = (JSON.parse(body) as { verdict?: unknown } | null)?.verdict;
    return verdict === 'approve' || verdict === 'deny' ? verdict : undefined;
  } catch {
    return undefined;
  }
}

/** The `Origin` of a request sent from another origin than the one it addresses (`http://<Host>`), else undefined. */
function crossOriginOf(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  return origin === `http://${req.headers.host ?? ''}` ? undefined : origin;
}
