import type { ApprovalAnswerer, ApprovalDecision, ApprovalRequest } from '../providers/approval/approval-service.js';

/**
 * An ApprovalAnswerer for unit tests: answers from a queue of decisions
 * (undefined passes to the next answerer) and records every request.
 */
export class ScriptedApprovalAnswerer implements ApprovalAnswerer {
  readonly requests: ApprovalRequest[] = [];
  private readonly queue: Array<ApprovalDecision | undefined>;

  constructor(
    decisions: Array<ApprovalDecision | undefined> = [],
    readonly name = 'scripted',
    private readonly whenEmpty: ApprovalDecision | undefined = undefined,
  ) {
    this.queue = [...decisions];
  }

  async answer(request: ApprovalRequest): Promise<ApprovalDecision | undefined> {
    this.requests.push(request);
    return this.queue.length > 0 ? this.queue.shift() : this.whenEmpty;
  }
}
