import type { CallPresentation, ResultPresentation, ToolResult } from '../../core/tool-contract.js';
import type { RunResult } from '../../providers/exec/shell/shell-executor.js';
import { parseExit } from './bash-render.js';

/** Terminal card for a bash call; undefined for malformed arguments. Pure. */
export function presentBashCall(args: unknown): CallPresentation | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const { command, description, workdir } = args as Record<string, unknown>;
  if (typeof command !== 'string' || command.trim() === '') return undefined;
  return {
    title: 'bash',
    command,
    description: typeof description === 'string' ? description : undefined,
    cwd: typeof workdir === 'string' ? workdir : undefined,
  };
}

/**
 * Terminal card for a bash result: the exit marker becomes the pill and
 * leaves the body; every other marker stays. Pure; never throws.
 */
export function presentBashResult(result: ToolResult): ResultPresentation | undefined {
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return undefined;
  const text = content.map((block) => (typeof block?.text === 'string' ? block.text : '')).join('');
  if (result.isError) return { body: text, isError: true };
  const value = result.value as ({ kind?: string } & Partial<RunResult>) | undefined;
  if (value?.kind === 'background') return { body: text, isError: false };
  const known = value?.kind === 'foreground' ? { exitCode: value.exitCode ?? null, signal: value.signal ?? null } : undefined;
  const parsed = parseExit(text, known);
  return {
    body: parsed.body,
    exitCode: parsed.exitCode,
    signal: parsed.signal,
    timedOut: value?.kind === 'foreground' ? value.timedOut : /\n?\[timed out after \d+ms\]$/.test(parsed.body),
    isError: false,
  };
}
