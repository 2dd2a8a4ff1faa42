import type { ResultPresentation, ToolResult } from '../../core/tool-contract.js';
import type { SendResult } from '../../providers/exec/terminal/terminal-service.js';
import { collapsedNotice } from '../../providers/output-filter/line-collapse.js';
import { resourceLimitNotice, type ResourceLimitHit } from '../../providers/exec/shell/shell-executor.js';

/** Model-visible notices of the persistent tool (stable text). */
export const RESET_NOTICE = '[shell reset: the next call starts a fresh shell in the workspace]';
export const FRESH_SHELL_NOTICE = '[the previous shell had exited; this call ran in a fresh shell in the workspace]';
/** The waiting notice names the tool the input goes through (`bash`, or its name beside the one-shot shell). */
const waitingNotice = (toolName: string): string =>
  `[waiting for input: the command is still running and reading the terminal; your next ${toolName} call's text is sent to it as one line of input (^C interrupts it, ^D sends end-of-file)]`;
export const WAITING_NOTICE = waitingNotice('bash');
export const NOT_DELIVERED_NOTICE =
  '[input not delivered: the waiting command had already finished (its remaining output is above); your text was not run]';
export const RESTARTED_NOTICE = '[shell restarted: this call ran in a fresh shell in the workspace]';
export const CANCELLED_NOTICE = '[shell reset: the previous call was cancelled; this call ran in a fresh shell in the workspace]';
export const FRAME_LOST_NOTICE =
  "[shell unusable: it went back to its prompt without running this call's frame (e.g. a DEBUG trap under extdebug, a disabled builtin); the command may not have run]";
export const FORGED_END_NOTICE =
  "[forged end marker: the command printed this call's end marker while it was still running; the output above runs to its real end]";
export const LOST_PREFIX_NOTICE = "[earlier output lost: the terminal kept only the end of this command's output]";

const clipNotice = (chars: number): string => `[output clipped: ${chars} more characters not shown]`;
const sandboxChangedNotice = (mode: string): string =>
  `[sandbox mode is now ${mode}: this call ran in a fresh shell in the workspace]`;

/** The typed value of a persistent `bash` result. */
export interface PersistentBashValue {
  readonly kind: 'foreground';
  /** Which `bash` ran it: tells this value from the one-shot tool's without probing fields. */
  readonly shell: 'persistent';
  /** The output as shown (after clipping), without notices. */
  readonly output: string;
  /** The command's status; for a dead shell, the shell's exit code. Null when unknown (timeout, stdin wait, signal). */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  readonly waitingForInput: boolean;
  /** True when this call's text went to a waiting command as input. */
  readonly deliveredAsInput: boolean;
  readonly shellExited: boolean;
  /** True when the shell no longer ran the host's frame around commands (it was reset). */
  readonly frameLost: boolean;
  /** True when the shell was closed: the next call starts fresh in the workspace. */
  readonly shellReset: boolean;
  readonly clippedChars: number;
  readonly lostPrefix: boolean;
  readonly durationMs: number;
}

interface RenderContext {
  readonly maxOutputChars: number;
  readonly timeoutMs: number;
  readonly durationMs: number;
  /** The shell of the previous call had died and this call opened a fresh one. */
  readonly freshShell: boolean;
  /** The previous call was cancelled, which reset the shell; this call opened a fresh one. */
  readonly afterCancel?: boolean;
  /** The tool's name when it is not `bash` (mounted beside the one-shot shell): the waiting notice names it. */
  readonly toolName?: string;
  /** The call asked for `restart`: it ran in a fresh shell. */
  readonly restarted?: boolean;
  /** Set when the session's sandbox mode changed, so this call ran in a fresh shell under that mode. */
  readonly sandboxChangedTo?: string;
  /** Set when a failed command hit the sandbox: the mode it was denied under. */
  readonly deniedUnder?: string;
  /** Resource limits this call ran into (a line each, before the exit line). */
  readonly limitsReached?: readonly ResourceLimitHit[];
}

/** The timeout / exit / reset lines that end a result, in order; the renderer and the presenter share this. */
function trailer(value: PersistentBashValue): string[] {
  const lines: string[] = [];
  if (value.timedOut) lines.push(`[timed out after ${value.timeoutMs}ms]`);
  if (value.shellExited) {
    if (value.signal) lines.push(`[shell killed by signal: ${value.signal}]`);
    else if (value.exitCode !== null) lines.push(`[shell exited: code ${value.exitCode}]`);
    else lines.push('[shell exited]');
  } else if (value.exitCode !== null && value.exitCode !== 0) {
    lines.push(`[exit code: ${value.exitCode}]`);
  }
  if (value.frameLost) lines.push(FRAME_LOST_NOTICE);
  if (value.shellReset) lines.push(RESET_NOTICE);
  return lines;
}

/** Text and typed value of one send, for an end other than `aborted`. */
export function renderSend(result: SendResult, ctx: RenderContext): ToolResult<PersistentBashValue> {
  const end = result.end;
  let output = result.output;
  let clippedChars = result.droppedChars ?? 0;
  if (output.length > ctx.maxOutputChars) {
    clippedChars += output.length - ctx.maxOutputChars;
    output = output.slice(0, ctx.maxOutputChars);
  }
  const shellExited = end.kind === 'shell-exited';
  const value: PersistentBashValue = {
    kind: 'foreground',
    shell: 'persistent',
    output,
    exitCode: end.kind === 'completed' ? end.exitCode : end.kind === 'shell-exited' ? end.exitCode : null,
    signal: end.kind === 'shell-exited' ? end.signal : null,
    timedOut: end.kind === 'timeout',
    timeoutMs: ctx.timeoutMs,
    waitingForInput: end.kind === 'waiting-for-input',
    deliveredAsInput: result.continuation?.inputDelivered === true,
    shellExited,
    frameLost: end.kind === 'framing-lost',
    shellReset: shellExited || end.kind === 'timeout' || end.kind === 'aborted' || end.kind === 'framing-lost',
    clippedChars,
    lostPrefix: result.lostPrefix,
    durationMs: ctx.durationMs,
  };
  const blocks: string[] = [];
  if (ctx.restarted) blocks.push(RESTARTED_NOTICE);
  if (ctx.afterCancel) blocks.push(CANCELLED_NOTICE);
  if (ctx.freshShell) blocks.push(FRESH_SHELL_NOTICE);
  if (ctx.sandboxChangedTo) blocks.push(sandboxChangedNotice(ctx.sandboxChangedTo));
  if (result.lostPrefix) blocks.push(LOST_PREFIX_NOTICE);
  const body = output.endsWith('\n') ? output.slice(0, -1) : output;
  if (body !== '') blocks.push(body);
  else if (clippedChars === 0 && !value.waitingForInput) blocks.push('(no output)');
  if (result.collapsedUpdates) blocks.push(collapsedNotice(result.collapsedUpdates));
  if (clippedChars > 0) blocks.push(clipNotice(clippedChars));
  if (result.forgedEnd) blocks.push(FORGED_END_NOTICE);
  if (result.continuation?.inputDelivered === false) blocks.push(NOT_DELIVERED_NOTICE);
  if (value.waitingForInput) blocks.push(waitingNotice(ctx.toolName ?? 'bash'));
  if (ctx.deniedUnder) blocks.push(`[sandbox: file access denied under ${ctx.deniedUnder} mode]`);
  for (const hit of ctx.limitsReached ?? []) blocks.push(resourceLimitNotice(hit));
  blocks.push(...trailer(value));
  return { content: [{ type: 'text', text: blocks.join('\n') }], value };
}

function isValue(value: unknown): value is PersistentBashValue {
  const v = value as Partial<PersistentBashValue> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.kind === 'foreground' &&
    v.shell === 'persistent' &&
    typeof v.output === 'string' &&
    typeof v.shellExited === 'boolean' &&
    typeof v.shellReset === 'boolean'
  );
}

/** A terminal card for a finished call: markers the renderer wrote leave the body. Never throws. */
export function presentPersistentResult(result: ToolResult): ResultPresentation | undefined {
  try {
    const block = result?.content?.[0];
    if (!block || typeof block.text !== 'string') return undefined;
    const isError = result.isError === true;
    if (isError || !isValue(result.value)) return { body: block.text, isError };
    const value = result.value;
    const suffix = trailer(value).join('\n');
    let body = block.text;
    if (suffix !== '' && body.endsWith(suffix)) body = body.slice(0, -suffix.length).replace(/\n$/, '');
    return {
      body,
      exitCode: value.exitCode ?? undefined,
      signal: value.signal ?? undefined,
      timedOut: value.timedOut,
      isError,
    };
  } catch {
    return undefined;
  }
}
