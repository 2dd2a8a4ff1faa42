import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';

/**
 * What became of a request. `timed-out`: nobody answered within the
 * service's timeout. `failed`: an answerer threw, rejected or returned
 * something that is not a decision. `undecided`: answerers were asked but
 * none decided (each passed, or answered `unavailable`). `unavailable`: there
 * was nobody to ask (no answerer bound). `needs-form`: the approver can
 * only open a URL, and an approval needs form input (an MCP client that
 * declared URL-mode elicitation only). All but `allowed-once` refuse.
 */
export type ApprovalDecision = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable' | 'timed-out' | 'failed' | 'undecided' | 'needs-form';

/** A sandbox escalation of one call, or a command under a command rule's `ask`. */
export type ApprovalKind = 'escalation' | 'command';

/**
 * One approval question, as typed fields: answerers show these, never a text
 * the requester wrote. Every approval (escalation or `ask` rule) carries
 * `kind`, `tool`, `command`; the others when they are known.
 */
export interface ApprovalFields {
  readonly kind: ApprovalKind;
  readonly tool: string;
  /** The exact command that runs if approved. */
  readonly command: string;
  /** The directory it runs in. */
  readonly workdir?: string;
  /** The mode the call is in now; absent when the composition confines nothing. */
  readonly sandboxMode?: SandboxMode;
  /** Escalations: the wider mode the command runs under if approved. */
  readonly requestedMode?: SandboxMode;
  /** Escalations: the model's reason for the wider mode (its words, shown as such). */
  readonly justification?: string;
  /** `ask` rules: the command rule that asked. */
  readonly rule?: string;
}

export interface ApprovalRequest extends ApprovalFields {
  readonly session?: SessionContext;
  readonly callId: string;
  /** Answerers get a signal that also fires when the service stops waiting (its timeout). */
  readonly signal?: AbortSignal;
  /**
   * The fields as one display text (`describeApproval`): mode first, the
   * command JSON-quoted with its line count, every control and bidi
   * character escaped. `LocalApprovalService` builds it from the fields and
   * ignores what the requester put here.
   */
  readonly reason: string;
}

/** What a requester passes: the fields; the text form is derived from them. */
export type ApprovalAsk = Omit<ApprovalRequest, 'reason'> & { readonly reason?: string };

/** A decision and who made it: an answerer's name, or `policy:<name>` when a policy decided without asking. */
export interface ApprovalOutcome {
  readonly decision: ApprovalDecision;
  readonly answeredBy?: string;
  /** Why an answerer failed (its error's message), for the audit record; never shown to the model. */
  readonly detail?: string;
}

/** Every kind of approval, for an answerer that decides them all (`kinds: APPROVAL_KINDS`). */
export const APPROVAL_KINDS: readonly ApprovalKind[] = Object.freeze(['command', 'escalation']);

/**
 * Multi-bound; consulted in order. Returns undefined to pass to the next
 * answerer. It is asked only the kinds it lists in `kinds`; without `kinds`
 * it is asked only `command` (`ask` rules): a sandbox escalation reaches an
 * answerer only when it says `kinds: ['escalation', …]`, so a command-rule
 * answerer ("deny rm, allow the rest") never widens a sandbox.
 */
export interface ApprovalAnswerer {
  readonly name: string;
  /** The kinds of request this answerer decides; default `['command']`. */
  readonly kinds?: readonly ApprovalKind[];
  answer(request: ApprovalRequest): Promise<ApprovalDecision | NamedDecision | undefined>;
}

/**
 * A decision with the person who made it (an operator of the console):
 * the outcome's `answeredBy` is then `<answerer>:<by>`.
 */
export interface NamedDecision {
  readonly decision: ApprovalDecision;
  readonly by: string;
}

/** Whether `answerer` is asked requests of `kind` (see `ApprovalAnswerer.kinds`). */
export function answersKind(answerer: ApprovalAnswerer, kind: ApprovalKind): boolean {
  const kinds: unknown = answerer?.kinds;
  return Array.isArray(kinds) ? kinds.includes(kind) : kind === 'command';
}

/** `answeredBy` of an `unavailable` outcome when answerers are bound but none takes the request's kind. */
export const NO_ANSWERER_FOR_KIND = 'policy:kinds';

export const ApprovalAnswerer: ServiceIdentifier<ApprovalAnswerer> = Symbol.for('dsh.ApprovalAnswerer');

/** One audit record: every request and its decision. */
export interface ApprovalRecord {
  readonly request: Omit<ApprovalRequest, 'signal' | 'session'> & { readonly sessionId?: string };
  readonly decision: ApprovalDecision;
  readonly answeredBy?: string;
  /** Why the answerer failed (a `failed` decision), e.g. `webhook: answered HTTP 500`. */
  readonly detail?: string;
  /** When the decision was made. */
  readonly at: number;
  /** When the request arrived (set by `LocalApprovalService`). */
  readonly requestedAt?: number;
}

/**
 * Asks answerers in order, failing closed: no answerer is `unavailable`, a
 * throwing one `failed`, only passing ones `undecided`. Session policy
 * `never` rejects without asking; no answer within `timeoutMs` is `timed-out`.
 */
export interface ApprovalService {
  /** How long a request waits for an answer, when the service has a limit. */
  readonly timeoutMs?: number;
  request(request: ApprovalAsk): Promise<ApprovalDecision>;
  /** Like `request`, with who decided (to tell a user's rejection from a policy's). */
  requestOutcome?(request: ApprovalAsk): Promise<ApprovalOutcome>;
  /**
   * The approval policy of `session` while it is open (kept in its session
   * scope, gone with it). A session id (deprecated) sets a
   * standing rule for every session with that id, kept as long as the service.
   */
  setPolicy(session: SessionContext | string, policy: 'ask' | 'never'): void;
  audit(): readonly ApprovalRecord[];
}

export const ApprovalService: ServiceIdentifier<ApprovalService> = Symbol.for('dsh.ApprovalService');

/** A session's approval policy: `ask` consults the answerers; `never` rejects without asking. */
export type ApprovalPolicy = 'ask' | 'never';
