import { inject, injectable, optional, type ServiceIdentifier } from 'inversify';
import { describeValue, messageOf } from '../../../core/describe-value.js';
import { existingScopeOf, ScopeKey, scopeOf } from '../../../core/session-scope.js';
import type { SessionContext } from '../../../core/tool-contract.js';
import { Clock, Logger } from '../../logging/logger.js';
import { isApprovalPolicy, resolveApprovalConfig, ApprovalConfig } from './approval-config.js';
import { asContributions, contributionsOf, type Contributions } from '../../../core/contribution-collector.js';
import { checkApprovalAsk } from './approval-request-check.js';
import { describeApproval } from './approval-text.js';
import { answererChain } from './answerer-chain.js';
import {
  ApprovalAnswerer,
  answersKind,
  NO_ANSWERER_FOR_KIND,
  type ApprovalAsk,
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalPolicy,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalService,
  type NamedDecision,
} from './approval-service.js';

/**
 * The bound answerers, read when a request arrives (not at construction), so
 * an answerer plugin loaded after the service was built — the MCP server's
 * elicitation answerer is — is still consulted. The collector of
 * `ApprovalAnswerer` (`src/core/contribution-collector.ts`).
 */
export type ApprovalAnswerers = Contributions<ApprovalAnswerer>;

export const ApprovalAnswerers: ServiceIdentifier<ApprovalAnswerers> = contributionsOf(ApprovalAnswerer);

const DECISIONS: ReadonlySet<string> = new Set<ApprovalDecision>([
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
  'timed-out',
  'failed',
  'undecided',
  'needs-form',
]);

type Outcome = ApprovalOutcome;

/**
 * The default approval service. Answerers are consulted in binding order;
 * each answers or passes (undefined). Fail closed, each way with its own
 * decision: no answerer bound — `unavailable`; every answerer passed, or one
 * answered `unavailable` — `undecided`; an answerer threw, rejected or
 * returned something that is not a decision — `failed`. An aborted signal
 * (before or while an answerer works) is `cancelled`. No answer within
 * `timeoutMs` is `timed-out`, and the answerer's signal fires so it can
 * withdraw its question (an MCP elicitation is cancelled). Answerers get the
 * request's typed fields, frozen, and a `reason` this service builds from
 * them (`describeApproval`), never a text the requester wrote. A session
 * whose policy is `never` is rejected without asking anyone. Every request
 * is recorded with its decision in the audit log
 * (bounded to the most recent `maxAuditRecords`).
 */
@injectable()
export class LocalApprovalService implements ApprovalService {
  private readonly answerers: ApprovalAnswerers;
  private readonly config: ApprovalConfig;
  /** Each session's own policy, in its scope; this key is this service's. */
  private readonly policyKey = new ScopeKey<{ policy: ApprovalPolicy }>('the approval policy');
  /** Standing rules by session id (the deprecated string form of `setPolicy`). */
  private readonly policiesById = new Map<string, ApprovalPolicy>();
  private readonly records: ApprovalRecord[] = [];

  /** `answerers` may also be a plain list (direct construction in tests and embedders). */
  constructor(
    @inject(ApprovalAnswerers) @optional() answerers?: ApprovalAnswerers | readonly ApprovalAnswerer[],
    @inject(ApprovalConfig) @optional() config?: Partial<ApprovalConfig>,
    @inject(Logger) @optional() private readonly logger?: Logger,
    @inject(Clock) @optional() private readonly clock?: Clock,
  ) {
    this.answerers = asContributions(answerers);
    this.config = resolveApprovalConfig(config);
  }

  get timeoutMs(): number {
    return this.config.timeoutMs;
  }

  async request(request: ApprovalAsk): Promise<ApprovalDecision> {
    return (await this.requestOutcome(request)).decision;
  }

  async requestOutcome(ask: ApprovalAsk): Promise<Outcome> {
    checkApprovalAsk(ask);
    const request: ApprovalRequest = { ...ask, reason: describeApproval(ask) };
    const requestedAt = this.now();
    const outcome = await this.decide(request);
    this.record(request, outcome, requestedAt);
    return outcome;
  }

  setPolicy(session: SessionContext | string, policy: ApprovalPolicy): void {
    const bySession = typeof session === 'object' && session !== null && typeof session.id === 'string';
    if (!bySession && (typeof session !== 'string' || session === '')) {
      throw new Error(`invalid session id: expected a session or a non-empty session id, got ${describeValue(session)}`);
    }
    if (!isApprovalPolicy(policy)) throw new Error(`invalid approval policy: expected ask or never, got ${describeValue(policy)}`);
    if (typeof session === 'string') this.policiesById.set(session, policy);
    else scopeOf(session).get(this.policyKey, () => ({ policy })).policy = policy;
  }

  /** The policy that applies to `session`: its own, else a standing rule for its id, else the configured default. */
  policyOf(session: SessionContext | undefined): ApprovalPolicy {
    if (session === undefined) return this.config.policy;
    return existingScopeOf(session)?.peek(this.policyKey)?.policy ?? this.policiesById.get(session.id) ?? this.config.policy;
  }

  audit(): readonly ApprovalRecord[] {
    return [...this.records];
  }

  private async decide(request: ApprovalRequest): Promise<Outcome> {
    if (request.signal?.aborted) return { decision: 'cancelled' };
    if (this.policyOf(request.session) === 'never') return { decision: 'rejected', answeredBy: 'policy:never' };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.config.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    try {
      const outcome = await this.ask(Object.freeze({ ...request, signal }));
      // The caller's own abort wins over a timeout that fired in the same turn.
      if (outcome.decision === 'cancelled' && deadline.signal.aborted && !request.signal?.aborted) {
        this.logger?.warn(`approval: no answer within ${this.config.timeoutMs} ms; rejecting`);
        return { decision: 'timed-out' };
      }
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  private async ask(request: ApprovalRequest & { readonly signal: AbortSignal }): Promise<Outcome> {
    const { signal } = request;
    let answerers: readonly ApprovalAnswerer[];
    try {
      answerers = this.answerers();
    } catch (error) {
      this.logger?.warn(`approval: cannot list the answerers (${messageOf(error)}); failing closed`);
      return { decision: 'failed' };
    }
    // The configured chain (approval.answerers), else the binding order with the webhook last.
    answerers = answererChain(answerers, this.config.answerers);
    if (answerers.length === 0) return { decision: 'unavailable' };
    // An answerer decides only the kinds it declares: an escalation never reaches a command-rule answerer.
    answerers = answerers.filter((answerer) => answersKind(answerer, request.kind));
    if (answerers.length === 0) return { decision: 'unavailable', answeredBy: NO_ANSWERER_FOR_KIND };
    for (const answerer of answerers) {
      const name = typeof answerer?.name === 'string' ? answerer.name : 'unnamed answerer';
      let answer: ApprovalDecision | NamedDecision | undefined | typeof ABORTED;
      try {
        answer = await untilAborted(() => answerer.answer(request), signal);
      } catch (error) {
        if (signal?.aborted) return { decision: 'cancelled' };
        this.logger?.warn(`approval: answerer "${name}" failed (${messageOf(error)}); failing closed`);
        return { decision: 'failed', answeredBy: name, detail: messageOf(error) };
      }
      if (answer === ABORTED) return { decision: 'cancelled' };
      if (answer === undefined) continue;
      // A person's answer names them: `console:alice`.
      const by = namedBy(answer);
      if (by !== undefined) return { decision: (answer as NamedDecision).decision, answeredBy: `${name}:${by}` };
      if (!DECISIONS.has(answer as string)) {
        this.logger?.warn(`approval: answerer "${name}" returned ${describeValue(answer)}; failing closed`);
        return { decision: 'failed', answeredBy: name };
      }
      // An answerer's own "unavailable" means it could not get a decision, not that none is configured.
      return { decision: answer === 'unavailable' ? 'undecided' : (answer as ApprovalDecision), answeredBy: name };
    }
    return { decision: 'undecided' };
  }

  private record(request: ApprovalRequest, outcome: Outcome, requestedAt: number): void {
    const sessionId = request.session?.id;
    const entry: ApprovalRecord = Object.freeze({
      request: Object.freeze({
        kind: request.kind,
        tool: request.tool,
        command: request.command,
        reason: request.reason,
        callId: request.callId,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...definedFields(request),
      }),
      decision: outcome.decision,
      ...(outcome.answeredBy === undefined ? {} : { answeredBy: outcome.answeredBy }),
      ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
      at: this.now(),
      requestedAt,
    });
    this.records.push(entry);
    if (this.records.length > this.config.maxAuditRecords) this.records.splice(0, this.records.length - this.config.maxAuditRecords);
    this.logger?.info(
      `approval: ${request.tool} call ${request.callId}${sessionId === undefined ? '' : ` (session ${sessionId})`}: ` +
        `${outcome.decision}${outcome.answeredBy === undefined ? '' : ` by ${outcome.answeredBy}`}`,
    );
  }

  private now(): number {
    return this.clock?.now() ?? Date.now();
  }
}

const ABORTED = Symbol('aborted');

/** The person of a `NamedDecision` whose decision is a decision (not `unavailable`), else undefined. */
function namedBy(answer: unknown): string | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const { decision, by } = answer as Partial<NamedDecision>;
  return typeof by === 'string' && by !== '' && decision !== 'unavailable' && DECISIONS.has(decision as string) ? by : undefined;
}

/** Runs `answer`, settling early with ABORTED when `signal` fires first. Sync throws reject. */
async function untilAborted<T>(answer: () => Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  const pending = Promise.resolve().then(answer);
  if (signal === undefined) return pending;
  // The answer may still settle (or fail) after we stopped waiting: never leave it unhandled.
  pending.catch(() => undefined);
  let onAbort!: () => void;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The optional fields a request carries, without the undefined ones (for the audit record). */
function definedFields(request: ApprovalRequest): Partial<ApprovalRequest> {
  const fields: Record<string, unknown> = {};
  for (const key of ['workdir', 'sandboxMode', 'requestedMode', 'justification', 'rule'] as const) {
    if (request[key] !== undefined) fields[key] = request[key];
  }
  return fields;
}
