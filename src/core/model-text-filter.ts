import type { ServiceIdentifier } from 'inversify';
import type { CallContext, ToolResult } from './tool-contract.js';

/**
 * The host's last line of defence for model-visible text: every result,
 * progress line and notice of a host passes through it when one is bound
 * (secret redaction, `outputFilterModule`). The host knows only this seam.
 */
export interface ModelTextFilter {
  /** False when there is nothing to filter: the host then skips it. */
  readonly active: boolean;
  /** The result with every string filtered (text blocks and the typed value; shapes kept). */
  filterResult<V>(result: ToolResult<V>): ToolResult<V>;
  /** The same call context with its progress lines filtered. */
  filterProgress(ctx: CallContext): CallContext;
  filterNotice(notice: string): string;
}

export const ModelTextFilter: ServiceIdentifier<ModelTextFilter> = Symbol.for('dsh.ModelTextFilter');
