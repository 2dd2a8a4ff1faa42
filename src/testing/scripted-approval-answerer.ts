import { APPROVAL_KINDS, type ApprovalAnswerer, type ApprovalDecision, type ApprovalKind, type ApprovalRequest } from '../providers/policy/approval/approval-service.js';

/**
 * One scripted answer: a decision; `undefined` passes to the next answerer;
 * `{ throws: message }` fails the way a broken approver does; `'never'`
 * waits until the request's signal fires (the service's timeout or the
 * caller's abort), the way a person who does not answer does.
 */
export type ScriptedApproval = ApprovalDecision | undefined | { readonly throws: string } | 'never';

/**
 * An ApprovalAnswerer for unit tests: answers from a queue (then `whenEmpty`)
 * and records every request it was asked, with all its typed fields.
 */
export class ScriptedApprovalAnswerer implements ApprovalAnswerer {
  readonly requests: ApprovalRequest[] = [];
  private readonly queue: ScriptedApproval[];

  constructor(
    answers: ScriptedApproval[] = [],
    readonly name = 'scripted',
    private readonly whenEmpty: ScriptedApproval = undefined,
    /** The kinds it is asked (`ApprovalAnswerer.kinds`); default every kind. */
    readonly kinds: readonly ApprovalKind[] = APPROVAL_KINDS,
  ) {
    this.queue = [...answers];
  }

  async answer(request: ApprovalRequest): Promise<ApprovalDecision | undefined> {
    this.requests.push(request);
    const next = this.queue.length > 0 ? this.queue.shift() : this.whenEmpty;
    if (next === 'never') return waitForAbort(request.signal);
    if (typeof next === 'object') throw new Error(next.throws);
    return next;
  }
}

/** Settles as `cancelled` once `signal` fires; never without one. */
function waitForAbort(signal: AbortSignal | undefined): Promise<ApprovalDecision> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve('cancelled');
    signal?.addEventListener('abort', () => resolve('cancelled'), { once: true });
  });
}
