import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../core/tool-contract.js';
import type { SandboxMode } from '../shell/shell-executor.js';

/** `timed-out`: nobody answered within the service's timeout (a rejection). */
export type ApprovalDecision = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable' | 'timed-out';

export interface ApprovalRequest {
  readonly session?: SessionContext;
  readonly tool: string;
  /** What the user is asked to approve, e.g. the command and the requested mode. */
  readonly reason: string;
  readonly callId: string;
  /** Answerers get a signal that also fires when the service stops waiting (its timeout). */
  readonly signal?: AbortSignal;
  /** What is asked: a sandbox escalation, or a command under a command policy's `ask` rule. */
  readonly kind?: 'escalation' | 'command';
  /** Structured facts for answerers and the audit log (the `reason` is their text form). */
  readonly command?: string;
  readonly workdir?: string;
  readonly sandboxMode?: SandboxMode;
  /** The command rule that asked. */
  readonly rule?: string;
}

/** A decision and who made it: an answerer's name, or `policy:<name>` when a policy decided without asking. */
export interface ApprovalOutcome {
  readonly decision: ApprovalDecision;
  readonly answeredBy?: string;
}

/** Multi-bound; consulted in order. Returns undefined to pass to the next answerer. */
export interface ApprovalAnswerer {
  readonly name: string;
  answer(request: ApprovalRequest): Promise<ApprovalDecision | undefined>;
}

export const ApprovalAnswerer: ServiceIdentifier<ApprovalAnswerer> = Symbol.for('dsh.ApprovalAnswerer');

/** One audit record: every request and its decision. */
export interface ApprovalRecord {
  readonly request: Omit<ApprovalRequest, 'signal' | 'session'> & { readonly sessionId?: string };
  readonly decision: ApprovalDecision;
  readonly answeredBy?: string;
  /** When the decision was made. */
  readonly at: number;
  /** When the request arrived (set by `LocalApprovalService`). */
  readonly requestedAt?: number;
}

/**
 * Asks answerers in order; no answerer or a throwing one yields
 * `unavailable` (fail closed). Session policy `never` rejects without asking;
 * no answer within `timeoutMs` is `timed-out`.
 */
export interface ApprovalService {
  /** How long a request waits for an answer, when the service has a limit. */
  readonly timeoutMs?: number;
  request(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** Like `request`, with who decided (to tell a user's rejection from a policy's). */
  requestOutcome?(request: ApprovalRequest): Promise<ApprovalOutcome>;
  setPolicy(sessionId: string, policy: 'ask' | 'never'): void;
  audit(): readonly ApprovalRecord[];
}

export const ApprovalService: ServiceIdentifier<ApprovalService> = Symbol.for('dsh.ApprovalService');

/** A session's approval policy: `ask` consults the answerers; `never` rejects without asking. */
export type ApprovalPolicy = 'ask' | 'never';
