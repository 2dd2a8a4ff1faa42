import { randomUUID } from 'node:crypto';
import type { ServiceIdentifier } from 'inversify';
import { APPROVAL_KINDS, type ApprovalAnswerer, type ApprovalDecision, type ApprovalRequest } from '../approval-service.js';
import type { WebhookConfig } from './webhook-config.js';
import { requestBody, verdictOf } from './webhook-messages.js';
import { lazyModule } from '../../../../core/lazy-module.js';
import { SIGNATURE_HEADER, signatureProblem, signBody } from './webhook-signature.js';

/** node:http and node:https (about 10 ms of start-up): loaded with the first request, not with the approval module. */
const webhookPost = lazyModule<typeof import('./webhook-post.js')>(
  () => require('./webhook-post.js'),
  () => import('./webhook-post.js'),
);

/** The answerer's name: what `answeredBy` and `approval.answerers` call it. */
export const WEBHOOK_ANSWERER = 'webhook';

/** Ids answered or withdrawn are remembered this long (a replayed callback then reads "already answered"), at most this many. */
const FINISHED_MS = 15 * 60_000;
const MAX_FINISHED = 10_000;

/** What the callback endpoint answers: an HTTP status and a one-line text. */
interface CallbackReply {
  readonly status: number;
  readonly text: string;
}

/** The webhook answerer, as the HTTP server's callback endpoint sees it. */
export interface ApprovalCallbacks {
  /** The HTTP listener serves `POST /approvals/<id>`: requests from now on offer the callback. */
  offerCallbacks(): void;
  /** A receiver's later answer to approval `id`: checked, then given to the waiting call. */
  receive(id: string, signature: string | string[] | undefined, body: string): CallbackReply;
}

export const ApprovalCallbacks: ServiceIdentifier<ApprovalCallbacks> = Symbol.for('dsh.ApprovalCallbacks');

interface Waiting {
  settle(decision: ApprovalDecision): void;
}

/**
 * Asks an approval service of the operator's own (chat, ticket, pager) by
 * POSTing each request to `approval.webhook.url`, signed with the shared
 * secret (docs/security/approvals.md, "The approval webhook"). The signed
 * answer comes in the response body, or, when the response says `pending`,
 * later as a signed `POST /approvals/<id>` to the HTTP server. Anything else
 * — no answer within `timeoutMs`, a connection error, a redirect, a non-2xx
 * status, a bad or missing signature, an oversize or malformed body — throws
 * with its reason, which the approval service records as `failed`.
 */
export class WebhookApprovalAnswerer implements ApprovalAnswerer, ApprovalCallbacks {
  readonly name = WEBHOOK_ANSWERER;
  readonly kinds = APPROVAL_KINDS;
  private readonly waiting = new Map<string, Waiting>();
  /** Id → when it stopped waiting. */
  private readonly finished = new Map<string, number>();
  private callbacks = false;

  constructor(
    private readonly config: WebhookConfig,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  offerCallbacks(): void {
    this.callbacks = true;
  }

  async answer(request: ApprovalRequest): Promise<ApprovalDecision> {
    const id = randomUUID();
    const callback = this.callbacks;
    let first: ApprovalDecision | undefined;
    let resolve!: (decision: ApprovalDecision) => void;
    const decided = new Promise<ApprovalDecision>((done) => (resolve = done));
    // The first answer wins, by response or by callback.
    const settle = (decision: ApprovalDecision) => {
      if (first !== undefined) return;
      first = decision;
      resolve(decision);
    };
    // Before the POST: a receiver may call back before it answers the request.
    if (callback) this.waiting.set(id, { settle });
    try {
      const body = requestBody(id, request, callback, this.now());
      try {
        const { postWebhook } = await webhookPost();
        const response = await postWebhook(this.config.url, body, { [SIGNATURE_HEADER]: signBody(this.secret, body, this.now()) }, this.config.timeoutMs, request.signal);
        const verdict = this.verdictOfResponse(response, id, callback);
        if (verdict !== 'pending') settle(verdict);
      } catch (error) {
        // A signed callback already decided: what the response did afterwards changes nothing.
        if (first !== undefined) return first;
        throw error;
      }
      return await untilWithdrawn(decided, request.signal);
    } finally {
      this.waiting.delete(id);
      this.remember(id);
    }
  }

  receive(id: string, signature: string | string[] | undefined, body: string): CallbackReply {
    const problem = signatureProblem(this.secret, signature, body, this.now());
    if (problem !== undefined) return { status: 401, text: `approval answer refused: ${problem}` };
    const verdict = verdictOf(body, id, false);
    if (typeof verdict === 'object') return { status: 400, text: `approval answer refused: ${verdict.problem}` };
    const waiting = this.waiting.get(id);
    if (!waiting) {
      this.expire();
      return this.finished.has(id)
        ? { status: 409, text: `approval answer refused: approval ${id} was already answered, withdrawn or timed out` }
        : { status: 404, text: `approval answer refused: no approval ${id} is waiting` };
    }
    this.waiting.delete(id);
    this.remember(id);
    waiting.settle(verdict as ApprovalDecision);
    return { status: 200, text: `approval ${id}: ${verdict} recorded` };
  }

  private verdictOfResponse(response: { status: number; headers: Record<string, unknown>; body: string }, id: string, callback: boolean) {
    const { status } = response;
    if (status >= 300 && status < 400) throw new Error(`webhook: answered HTTP ${status}; redirects are not followed`);
    if (status < 200 || status >= 300) throw new Error(`webhook: answered HTTP ${status}`);
    const problem = signatureProblem(this.secret, response.headers[SIGNATURE_HEADER] as string | string[] | undefined, response.body, this.now());
    if (problem !== undefined) throw new Error(`webhook: the answer's signature is refused (${problem})`);
    const verdict = verdictOf(response.body, id, callback);
    if (typeof verdict === 'object') throw new Error(`webhook: malformed answer (${verdict.problem})`);
    return verdict;
  }

  private remember(id: string): void {
    this.finished.set(id, this.now());
    this.expire();
  }

  private expire(): void {
    const oldest = this.now() - FINISHED_MS;
    for (const [id, at] of this.finished) {
      if (at >= oldest && this.finished.size <= MAX_FINISHED) break;
      this.finished.delete(id);
    }
  }
}

/** `decision`, or a rejection when `signal` fires first (the service then tells a timeout from a cancel). */
function untilWithdrawn(decision: Promise<ApprovalDecision>, signal: AbortSignal | undefined): Promise<ApprovalDecision> {
  if (!signal) return decision;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('webhook: the approval was withdrawn before an answer came'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    decision.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}
