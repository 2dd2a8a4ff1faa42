import type { CallContext, ToolResult } from '../../core/tool-contract.js';
import type { Redactor } from './redactor.js';

/**
 * The last line of defence at the host boundary: every string of a result
 * (text blocks and the typed value) goes through `redactor`. The backends
 * already redact their streams (catching secrets split across chunks and
 * keeping them out of spill files); this catches what no stream carried —
 * error messages, notices appended to a result, a tool's own text.
 */
export function redactResult<V>(result: ToolResult<V>, redactor: Redactor): ToolResult<V> {
  const content = result.content.map((block) => ({ ...block, text: redactor.redact(block.text) }));
  // The value keeps its shape: only its strings change.
  return result.value === undefined ? { ...result, content } : { ...result, content, value: redactDeep(result.value, redactor, 0) as V };
}

/** The same context with progress `lastLine`s redacted. */
export function redactProgress(ctx: CallContext, redactor: Redactor): CallContext {
  const onProgress = ctx.onProgress;
  if (onProgress === undefined) return ctx;
  return {
    ...ctx,
    onProgress: (progress) =>
      onProgress(progress.lastLine === undefined ? progress : { ...progress, lastLine: redactor.redact(progress.lastLine) }),
  };
}

/** Typed values are small plain records; depth is bounded so a cycle cannot hang the call. */
function redactDeep(value: unknown, redactor: Redactor, depth: number): unknown {
  // An empty string holds no secret: no pass for it.
  if (typeof value === 'string') return value === '' ? value : redactor.redact(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redactor, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item, redactor, depth + 1);
  return out;
}
