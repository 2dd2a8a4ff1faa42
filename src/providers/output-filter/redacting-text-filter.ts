import { inject, injectable } from 'inversify';
import type { ModelTextFilter } from '../../core/model-text-filter.js';
import type { CallContext, ToolResult } from '../../core/tool-contract.js';
import { redactProgress, redactResult } from './redact-result.js';
import { Redactor } from './redactor.js';

/** The host's `ModelTextFilter`: the bound `Redactor` (a replaced or decorated one too) over every model-visible text. */
@injectable()
export class RedactingTextFilter implements ModelTextFilter {
  constructor(@inject(Redactor) private readonly redactor: Redactor) {}

  get active(): boolean {
    return this.redactor.active;
  }

  filterResult<V>(result: ToolResult<V>): ToolResult<V> {
    return redactResult(result, this.redactor);
  }

  filterProgress(ctx: CallContext): CallContext {
    return redactProgress(ctx, this.redactor);
  }

  filterNotice(notice: string): string {
    return this.redactor.redact(notice);
  }
}
