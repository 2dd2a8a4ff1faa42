import { randomUUID } from 'node:crypto';
import { noteForCurrentCall } from '../../core/call-scope.js';
import { APPROVAL_KINDS, type ApprovalAnswerer, type ApprovalFields, type ApprovalRequest, type NamedDecision } from '../../providers/policy/approval/approval-service.js';

/** The answerer's name: what `approval.answerers` and `answeredBy` (`console:<operator>`) call it. */
const CONSOLE_ANSWERER = 'console';

/** One approval waiting in the console, as the page shows it. */
export interface PendingApproval extends ApprovalFields {
  readonly id: string;
  readonly callId: string;
  readonly session: string | null;
  readonly caller: string | null;
  /** Epoch ms. */
  readonly askedAt: number;
}

interface Waiting {
  readonly shown: PendingApproval;
  readonly settle: (answer: NamedDecision) => void;
}

/** What an operator's answer did: recorded, or why not (the id is unknown, or already answered). */
type ConsoleAnswerResult = 'recorded' | 'unknown';

/**
 * Puts approvals to the operators of the console (docs/operations.md,
 * "Operator console"): each waits here until an operator approves it once
 * or denies it, or the approval service's limit (`approval.timeoutMs`)
 * withdraws it. The decision carries the operator's name (`console:alice`
 * in the audit record, "rejected by operator" in the refusal), and an
 * approval tells the model who allowed it in a notice on the call's result.
 */
export class ConsoleApprovalAnswerer implements ApprovalAnswerer {
  readonly name = CONSOLE_ANSWERER;
  readonly kinds = APPROVAL_KINDS;
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  answer(request: ApprovalRequest): Promise<NamedDecision> {
    const id = randomUUID();
    // The asking call's own scope: the approval's note goes on its answer, not on whichever call of the session ends next.
    const noteOnCall = noteForCurrentCall();
    const shown: PendingApproval = Object.freeze({
      id,
      callId: request.callId,
      session: request.session?.id ?? null,
      caller: request.session?.caller ?? null,
      askedAt: this.now(),
      kind: request.kind,
      tool: request.tool,
      command: request.command,
      ...definedFacts(request),
    });
    return new Promise<NamedDecision>((resolve, reject) => {
      const withdraw = () => {
        this.drop(id);
        reject(new Error('console: the approval was withdrawn before an operator answered'));
      };
      if (request.signal?.aborted) return withdraw();
      request.signal?.addEventListener('abort', withdraw, { once: true });
      this.waiting.set(id, {
        shown,
        settle: (answer) => {
          request.signal?.removeEventListener('abort', withdraw);
          this.drop(id);
          const note = `[${request.kind} approved once by operator "${answer.by}" in the operator console]`;
          if (answer.decision === 'allowed-once' && noteOnCall) noteOnCall(note);
          else if (answer.decision === 'allowed-once') request.session?.notify(note);
          resolve(answer);
        },
      });
      this.changed();
    });
  }

  /** The approvals waiting now, oldest first. */
  pending(): PendingApproval[] {
    return [...this.waiting.values()].map((waiting) => waiting.shown);
  }

  /** An operator's answer to approval `id`: `approve` allows the call once, `deny` rejects it. */
  decide(id: string, verdict: 'approve' | 'deny', operator: string): ConsoleAnswerResult {
    const waiting = this.waiting.get(id);
    if (!waiting) return 'unknown';
    waiting.settle({ decision: verdict === 'approve' ? 'allowed-once' : 'rejected', by: operator });
    return 'recorded';
  }

  /** Calls `listener` whenever the pending list changes. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private drop(id: string): void {
    if (this.waiting.delete(id)) this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** The optional facts the request carries (workdir, modes, reason, rule), without the undefined ones. */
function definedFacts(request: ApprovalRequest): Partial<ApprovalFields> {
  const facts: Record<string, unknown> = {};
  for (const key of ['workdir', 'sandboxMode', 'requestedMode', 'justification', 'rule'] as const) {
    if (request[key] !== undefined) facts[key] = request[key];
  }
  return facts;
}
