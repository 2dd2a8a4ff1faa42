import { collapsedNotice } from '../../providers/output-filter/line-collapse.js';
import { leftoverNotice, resourceLimitNotice, type RunResult } from '../../providers/exec/shell/shell-executor.js';
import type { OneShotResult } from './bash-result-value.js';

/** Lines the model is told about in the escalation-capable compositions (docs/contract.md §4.1). */
export const ESCALATION_HINT =
  '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]';

interface RenderOptions {
  /** True when the tool advertises escalation (a sandboxing executor with approval). */
  readonly escalationAdvertised?: boolean;
  /** Why a command at its default timeout was killed instead of moved to a background task. */
  readonly notMoved?: string;
  /** The command outlived its default timeout and continues as this task (no exit marker: it has not ended). */
  readonly movedTo?: { readonly taskId: string; readonly afterMs: number };
}

/**
 * The model-visible text of a foreground run: stdout, a `[stderr]` section,
 * truncation notes after their stream, then sandbox, timeout and finally the
 * exit/signal marker, each on its own line.
 */
export function renderForeground(result: OneShotResult, options: RenderOptions = {}): string {
  const blocks: string[] = [];
  if (result.stdout !== '' || result.stdoutTruncated) {
    blocks.push(result.stdout);
    if (result.stdoutTruncated) blocks.push(truncationMarker(result.stdoutSpillPath));
  }
  if (result.stderr !== '' || result.stderrTruncated) {
    blocks.push(`[stderr]\n${result.stderr}`);
    if (result.stderrTruncated) blocks.push(truncationMarker(result.stderrSpillPath));
  }
  if (blocks.length === 0) blocks.push('(no output)');
  if (result.collapsedUpdates) blocks.push(collapsedNotice(result.collapsedUpdates));
  if (result.sandboxDenied && result.sandboxMode) {
    blocks.push(`[sandbox: file access denied under ${result.sandboxMode} mode]`);
    if (options.escalationAdvertised) blocks.push(ESCALATION_HINT);
  }
  if (options.movedTo) {
    const { taskId, afterMs } = options.movedTo;
    blocks.push(`[still running after ${afterMs}ms: moved to background task ${taskId}; read more with task_output, stop it with task_kill]`);
    return joinLines(blocks);
  }
  if (result.timedOut && options.notMoved !== undefined) blocks.push(`[not moved to background: ${options.notMoved}]`);
  if (result.timedOut) blocks.push(`[timed out after ${result.timeoutMs}ms]`);
  if (result.leftoversKilled) blocks.push(leftoverNotice(result.leftoversKilled));
  for (const hit of result.limitsReached ?? []) blocks.push(resourceLimitNotice(hit));
  const exit = exitMarker(result);
  if (exit) blocks.push(exit);
  return joinLines(blocks);
}

function truncationMarker(spillPath: string | undefined): string {
  return `[output truncated; full output: ${spillPath ?? '(unavailable)'}]`;
}

/** `[killed by signal: SIG]`, `[exit code: N]` for a non-zero exit, else undefined. */
function exitMarker(result: Pick<RunResult, 'exitCode' | 'signal'>): string | undefined {
  if (result.signal) return `[killed by signal: ${result.signal}]`;
  if (result.exitCode !== null && result.exitCode !== 0) return `[exit code: ${result.exitCode}]`;
  return undefined;
}

/** Joins blocks so each starts on its own line; one trailing newline is dropped (unless it is all there is). */
function joinLines(blocks: string[]): string {
  let text = '';
  for (const block of blocks) {
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    text += block;
  }
  // A lone newline (`echo`) stays: an empty text would read as no answer at all.
  return text.endsWith('\n') && text.length > 1 ? text.slice(0, -1) : text;
}

const EXIT_LINE = /\n?\[(?:exit code: (-?\d+)|killed by signal: (SIG[A-Z0-9]+))\]$/;

interface ParsedExit {
  readonly body: string;
  readonly exitCode?: number;
  readonly signal?: string;
}

/**
 * Inverse of the exit marker: splits a rendered text into body and exit
 * facts. With the typed result at hand, only a marker the renderer wrote is
 * consumed, so output that merely ends in marker-like text after a clean
 * exit stays in the body.
 */
/** The next turn's notice for a call its client cancelled and that became a task (docs/contract.md §14). */
export function cancelledToTaskNotice(taskId: string, afterMs: number): string {
  return `[a bash call cancelled by the client after ${afterMs}ms was moved to background task ${taskId} instead of being killed; read more with task_output, stop it with task_kill]`;
}

export function parseExit(text: string, known?: Pick<RunResult, 'exitCode' | 'signal'>): ParsedExit {
  if (known) {
    const marker = exitMarker(known);
    if (marker && text.endsWith(marker)) {
      return { body: text.slice(0, -marker.length).replace(/\n$/, ''), ...exitFacts(known) };
    }
    return { body: text, ...exitFacts(known) };
  }
  const match = EXIT_LINE.exec(text);
  if (!match) return { body: text, exitCode: 0 };
  const body = text.slice(0, match.index);
  return match[1] !== undefined ? { body, exitCode: Number(match[1]) } : { body, signal: match[2] };
}

function exitFacts(known: Pick<RunResult, 'exitCode' | 'signal'>): Omit<ParsedExit, 'body'> {
  return known.signal ? { signal: known.signal } : { exitCode: known.exitCode ?? undefined };
}
