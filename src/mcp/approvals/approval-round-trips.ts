import { randomBytes, randomUUID } from 'node:crypto';
import type { CallToolResult, ClientCapabilities, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import { lazy } from '../../core/lazy.js';
import { errorResult } from '../../core/tool-contract.js';
import type { ApprovalDecision, ApprovalRequest } from '../../providers/policy/approval/approval-service.js';
import { describeApproval } from '../../providers/policy/approval/approval-text.js';
import { approvalSchema, decisionOfAnswer, formSupportOf, type FormSupport } from './approval-answers.js';
import { toCallToolResult } from '../calls/call-result.js';
import { CallRelay } from './call-relay.js';
import type { CallRequest } from '../calls/call-runner.js';
import { questionIdentity, type IssuedState, type SharedApprovalStates } from './shared-approval-states.js';
import type { GivenAnswer } from './approval-state-seal.js';

/**
 * The SDK's values, loaded on first use: the serve command loads this file
 * with the approval answerer before the stdio server answers `initialize`,
 * which must not wait for the SDK (see early-initialize.ts). Only a
 * 2026-07-28 call, which the loaded SDK itself delivers, reaches them.
 */
const sdk = lazy(() => import('@modelcontextprotocol/server'));

/** A 2026-07-28 `tools/call` answer: the result, or a question for the client. */
export type ModernCallResult = CallToolResult | InputRequiredResult;

/** A retry whose `requestState` names no approval waiting for this caller's exact call. */
export const STALE_APPROVAL_ANSWER =
  'approval answer refused: it answers no approval waiting for this call (unknown, expired, already answered, or another caller\'s); call the tool again';

/** The token a call runs with when its first request named none; the relay sends progress under the open request's own. */
const RELAYED_PROGRESS = 'dsh-relayed-progress';

interface Question {
  /** The `inputRequests` key: fresh per question, so an answer to another question never fits. */
  readonly key: string;
  readonly request: ApprovalRequest;
  readonly settle: (decision: ApprovalDecision) => void;
}

interface WaitingCall {
  readonly callId: string;
  readonly caller: string | undefined;
  /** The tool and its exact arguments: a retry must repeat them. */
  readonly binding: string;
  /** What the client declared on the request that started the call. */
  readonly forms: FormSupport;
  readonly relay: CallRelay;
  outcome: Promise<CallToolResult>;
  question?: Question;
  /** The `requestState` of the question out with the client now (one per round). */
  state?: string;
  wake?: () => void;
  /** Shared states: the state out now, as issued (its nonce is marked used when it is answered). */
  issued?: IssuedState;
  /** Shared states: the decisions this call already had, in order (the next state carries them). */
  readonly answered: GivenAnswer[];
  /** A call run again from a state: the answers to give, in order, to the questions it asks again. */
  replay?: ReplayedAnswer[];
}

/** An earlier round's decision, or the answer the retry brought for the question its state names. */
interface ReplayedAnswer {
  readonly question: string;
  readonly decision?: ApprovalDecision;
  readonly answer?: unknown;
}

type Run = (call: CallRequest) => Promise<CallToolResult>;

/**
 * Approvals in the 2026-07-28 era, where the server cannot ask the client
 * mid-call: the call runs on, and when its approval is asked the request is
 * answered `input_required` (one form elicitation with the approval's text
 * and fields) while the call waits here. The client's retry of the same
 * request, carrying the `requestState` and its answer, is connected to the
 * waiting call, whose result (or next question) answers it.
 *
 * The `requestState` is a random key into this table, new for each question
 * and forgotten once used: it only fits the caller that got it, the same
 * tool with the same arguments, and the question still waiting. The wait is
 * bounded by the approval service's own limit (`approval.timeoutMs`). With
 * shared sessions (`acrossReplicas`) the state is sealed instead, so that
 * any replica can take the answer by running the call again.
 *
 * The waiting call still runs in its session (it holds the handle it came
 * through like a request in flight), so that session is busy while the
 * question waits: not released for idleness, its shell not closed, not
 * evicted at a session cap. `approval.timeoutMs` bounds that too.
 */
export class ApprovalRoundTrips {
  private readonly byCallId = new Map<string, WaitingCall>();
  private readonly byState = new Map<string, WaitingCall>();
  private closed = false;
  private shared: SharedApprovalStates | undefined;

  /**
   * From now on a question's `requestState` is one any replica with the same
   * key takes an answer to (docs/shared-sessions.md#approvals); without it
   * a state is a random key into this table only.
   */
  acrossReplicas(states: SharedApprovalStates): void {
    this.shared = states;
  }

  /** Answers one `tools/call` of `caller`: a new call through `run`, or a retry of a waiting one. */
  serve(call: CallRequest, caller: string | undefined, run: Run): Promise<ModernCallResult> {
    const state = call.ctx.mcpReq.requestState<unknown>();
    return state === undefined ? this.start(call, caller, run) : this.resume(state, call, caller, run);
  }

  /** The answerer's side: questions of calls started here; `undefined` for any other call. */
  answer(request: ApprovalRequest): Promise<ApprovalDecision | undefined> {
    const waiting = this.byCallId.get(request.callId);
    if (!waiting || waiting.forms === 'none') return Promise.resolve(undefined);
    if (waiting.forms === 'url-only') return Promise.resolve('needs-form');
    if (waiting.question) return Promise.reject(new Error('another approval of this call is waiting'));
    // A closing server can deliver no answer: the call ends now, not at the approval's limit.
    if (this.closed || request.signal?.aborted) return Promise.resolve('cancelled');
    const replayed = replayedDecision(waiting, request);
    if (replayed !== undefined) return Promise.resolve(replayed);
    return new Promise((resolve) => {
      const withdraw = () => question.settle('cancelled');
      const question: Question = {
        key: `approval-${randomBytes(8).toString('hex')}`,
        request,
        settle: (decision) => {
          if (waiting.question !== question) return;
          waiting.question = undefined;
          this.dropState(waiting);
          request.signal?.removeEventListener('abort', withdraw);
          resolve(decision);
        },
      };
      waiting.question = question;
      // The service's limit or the caller's cancel withdraws the question; a late answer then fits nothing.
      request.signal?.addEventListener('abort', withdraw, { once: true });
      waiting.wake?.();
    });
  }

  /** The server closes: every waiting question is withdrawn (`cancelled`), and later ones too. */
  close(): void {
    this.closed = true;
    for (const waiting of [...this.byCallId.values()]) waiting.question?.settle('cancelled');
  }

  /** Calls waiting for an answer now (for tests and diagnostics). */
  get waiting(): number {
    return this.byState.size;
  }

  private async start(call: CallRequest, caller: string | undefined, run: Run, replay?: ReplayedAnswer[]): Promise<ModernCallResult> {
    const { CLIENT_CAPABILITIES_META_KEY } = await sdk();
    const callId = randomUUID();
    const relay = new CallRelay(call.ctx, call.progressToken);
    const waiting: WaitingCall = {
      callId,
      caller,
      binding: bindingOf(call),
      forms: formSupportOf(capabilitiesOf(call.ctx, CLIENT_CAPABILITIES_META_KEY)),
      relay,
      outcome: Promise.resolve(undefined as unknown as CallToolResult),
      answered: [],
      ...(replay ? { replay } : {}),
    };
    this.byCallId.set(callId, waiting);
    // Progress is always produced: a retry may ask for it though the first request did not (the relay drops it otherwise).
    waiting.outcome = run({ ...call, progressToken: call.progressToken ?? RELAYED_PROGRESS, ctx: relay.ctx, callId }).finally(() => this.forget(waiting));
    // Nobody may be waiting for it (the question was withdrawn between rounds): never an unhandled rejection.
    waiting.outcome.catch(() => undefined);
    return this.nextAnswer(waiting);
  }

  private async resume(state: unknown, call: CallRequest, caller: string | undefined, run: Run): Promise<ModernCallResult> {
    const waiting = typeof state === 'string' ? this.byState.get(state) : undefined;
    // Asked on another replica (or before a restart): the state alone says what was asked.
    if (!waiting && this.shared) return this.rerun(this.shared, state, call, caller, run);
    const question = waiting?.question;
    // A misfit consumes nothing: the caller the question belongs to can still answer it.
    if (!waiting || !question || waiting.caller !== caller || waiting.binding !== bindingOf(call)) return stale();
    const issued = waiting.issued;
    this.dropState(waiting);
    if (this.shared && issued && !(await this.shared.use(issued, caller ?? ''))) {
      // Answered on another replica already (it ran the call there): this wait is over too.
      question.settle('cancelled');
      return stale();
    }
    // Withdrawn while the answer was being marked used (the approval's limit, or a close).
    if (waiting.question !== question) return stale();
    waiting.relay.attach(call.ctx, call.progressToken);
    const decision = decisionOfAnswer(answerTo(call, question.key), question.request);
    if (this.shared) waiting.answered.push({ question: questionIdentity(question.request), decision });
    question.settle(decision);
    return this.nextAnswer(waiting);
  }

  /**
   * A retry whose waiting call is not here: when the state is sealed with
   * the shared key, fits this caller and exact call, has not expired and was
   * not used yet (marked used now, on every replica), the call runs again
   * from its start, and the questions it asks get the state's answers in
   * order; the first that differs, and every later one, is asked anew.
   */
  private async rerun(shared: SharedApprovalStates, state: unknown, call: CallRequest, caller: string | undefined, run: Run): Promise<ModernCallResult> {
    const facts = shared.open(state, caller ?? '', bindingOf(call));
    if (!facts || !(await shared.use(facts, caller ?? ''))) return stale();
    shared.rerunning();
    return this.start(call, caller, run, [...facts.answered, { question: facts.question, answer: answerTo(call, facts.key) }]);
  }

  /** The call's result, or, when it asks first, the question as an `input_required` answer. */
  private async nextAnswer(waiting: WaitingCall): Promise<ModernCallResult> {
    const { inputRequired } = await sdk();
    const asked = new Promise<'asked'>((resolve) => (waiting.wake = () => resolve('asked')));
    if (waiting.question) waiting.wake?.();
    const first = await Promise.race([waiting.outcome.then(() => 'done' as const), asked]);
    waiting.wake = undefined;
    const question = waiting.question;
    if (first === 'done' || !question) return waiting.outcome;
    const state = this.shared ? this.issue(this.shared, waiting, question) : randomBytes(18).toString('base64url');
    waiting.state = state;
    this.byState.set(state, waiting);
    waiting.relay.detach();
    return inputRequired({
      inputRequests: { [question.key]: inputRequired.elicit({ mode: 'form', message: describeApproval(question.request), requestedSchema: approvalSchema(question.request) }) },
      requestState: state,
    });
  }

  /** The sealed state of `question`: who, which call, what is asked and what was answered before. */
  private issue(shared: SharedApprovalStates, waiting: WaitingCall, question: Question): string {
    waiting.issued = shared.issue({
      caller: waiting.caller ?? '',
      binding: waiting.binding,
      question: questionIdentity(question.request),
      key: question.key,
      answered: [...waiting.answered],
    });
    return waiting.issued.state;
  }

  private dropState(waiting: WaitingCall): void {
    if (waiting.state !== undefined) this.byState.delete(waiting.state);
    waiting.state = undefined;
    waiting.issued = undefined;
  }

  private forget(waiting: WaitingCall): void {
    this.byCallId.delete(waiting.callId);
    this.dropState(waiting);
  }
}

function stale(): CallToolResult {
  return toCallToolResult(errorResult(STALE_APPROVAL_ANSWER)) as CallToolResult;
}

/** The retry's answer to the question under `key` (undefined when it brought none). */
function answerTo(call: CallRequest, key: string): unknown {
  const responses = call.ctx.mcpReq.inputResponses;
  return responses && Object.hasOwn(responses, key) ? responses[key] : undefined;
}

/**
 * A re-run call's next question, answered from its state when it is the
 * question that was answered; a question that differs is asked anew, and
 * so is every later one (nothing is approved that was not shown).
 */
function replayedDecision(waiting: WaitingCall, request: ApprovalRequest): ApprovalDecision | undefined {
  const next = waiting.replay?.shift();
  if (next === undefined) return undefined;
  const question = questionIdentity(request);
  if (next.question !== question) {
    waiting.replay = undefined;
    return undefined;
  }
  const decision = next.decision ?? decisionOfAnswer(next.answer, request);
  waiting.answered.push({ question, decision });
  return decision;
}

function capabilitiesOf(ctx: ServerContext, metaKey: string): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[metaKey] as ClientCapabilities | undefined;
}

/** The tool and its arguments as one string, keys sorted: the same call reads the same. */
function bindingOf(call: CallRequest): string {
  return JSON.stringify([call.name, sorted(call.args)]);
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]));
}
