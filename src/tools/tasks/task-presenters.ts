import type { CallPresentation, ResultPresentation, ToolResult } from '../../core/tool-contract.js';

const STATUS_LINE = /(?:^|\n)\[status: ([a-z]+)(?:, ([^\]\n]*))?\]$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The call card of a task tool. Pure: malformed args (not an object, a
 * non-string task id when one is required) give undefined, never a throw.
 */
export function presentTaskCall(title: string, args: unknown, needsTaskId: boolean): CallPresentation | undefined {
  if (args === undefined || args === null) return needsTaskId ? undefined : { title };
  if (!isRecord(args)) return undefined;
  if (!needsTaskId) return { title };
  const id = args.task_id;
  if (typeof id !== 'string' || id.length === 0) return undefined;
  const notes: string[] = [];
  if (args.wait === true) notes.push('waiting');
  if (typeof args.reason === 'string' && args.reason.length > 0) notes.push(args.reason);
  return { title, command: id, ...(notes.length > 0 && { description: notes.join('; ') }) };
}

/**
 * The result card of a task tool: a trailing `[status: …]` line carrying an
 * exit code or signal is parsed off into the card's pill. Pure; never throws.
 */
export function presentTaskResult(result: ToolResult): ResultPresentation | undefined {
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  const text = result.content
    .map((block: unknown) => (isRecord(block) && typeof block.text === 'string' ? block.text : ''))
    .join('\n');
  const isError = result.isError === true;
  const match = isError ? null : STATUS_LINE.exec(text);
  if (!match) return { body: text, isError };
  const detail = match[2] ?? '';
  const exit = /^exit code: (-?\d+)$/.exec(detail);
  const signal = /^signal: (\S+)$/.exec(detail);
  // Only a line that became an exit/signal pill leaves the body; `running` stays visible.
  if (!exit && !signal) return { body: text, isError };
  return {
    body: text.slice(0, match.index),
    ...(exit && { exitCode: Number(exit[1]) }),
    ...(signal && { signal: signal[1] }),
    isError,
  };
}
