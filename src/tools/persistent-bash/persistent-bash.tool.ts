import { inject, optional } from 'inversify';
import { HostConfig } from '../../core/host-config.js';
import { Tool, getToolMeta } from '../../core/tool.decorator.js';
import {
  ToolError,
  errorResult,
  withElapsed,
  type CallContext,
  type CallPresentation,
  type ResultPresentation,
  type SessionContext,
  type ToolInstance,
  type ToolResult,
} from '../../core/tool-contract.js';
import { PerSession } from '../../core/per-session.js';
import { callInfoOf } from '../../core/tool-call-context.js';
import { EnvRegistry } from '../../providers/policy/env/env-registry.js';
import { CallPlanner, type ShellPlan } from '../../providers/policy/planner/call-planner.js';
import type { SandboxMode } from '../../core/sandbox-mode.js';
import { TerminalService } from '../../providers/exec/terminal/terminal-service.js';
import { PersistentBashArgs } from './persistent-bash-args.js';
import { PERSISTENT_BASH_OUTPUT_SCHEMA } from './persistent-bash-output-schema.js';
import { PersistentBashConfig, resolvePersistentBashConfig } from './persistent-bash-config.js';
import { presentPersistentResult, renderSend } from './persistent-bash-render.js';
import { resolvePersistentCall, type PersistentCallSpec } from './persistent-call-spec.js';
import { idleClosedNotice, ShellIdleClock } from './shell-idle-close.js';

/** One session's shell: opened lazily, replaced after it dies or is closed. */
interface ShellSlot {
  readonly session: SessionContext;
  id?: string;
  /** The `DSH_*` overlay the shell currently has. */
  overlay: Record<string, string>;
  /** The last call was cancelled and its shell reset: the next result says so. */
  cancelled?: boolean;
  /** Settles when the session's previous call has; calls run one at a time, in order. */
  queue: Promise<unknown>;
  /** Closes the shell once it and its session were idle for `idleCloseMs` (shell-idle-close.ts). */
  readonly idleClock: ShellIdleClock;
  /** The key of the confinement the open shell runs under ('' unconfined; undefined: no sandbox composed). */
  confinementKey?: string;
  /** The sandbox mode the open shell was planned under (what a denial names). */
  mode?: SandboxMode;
}

/**
 * The `bash` tool over a persistent PTY shell: one shell per session, so
 * cwd, exports, functions and jobs carry over. A dead, timed-out or aborted
 * shell is closed and the next call opens a fresh one in the workspace.
 */
@Tool({
  name: 'bash',
  title: 'Run a command in your shell',
  // Commands can change or delete anything the user can, and reach the network.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  outputSchema: PERSISTENT_BASH_OUTPUT_SCHEMA,
  description: resolvePersistentBashConfig().description,
  args: PersistentBashArgs,
})
export class PersistentBashTool implements ToolInstance<PersistentBashArgs> {
  private readonly config: PersistentBashConfig;
  /**
   * Each session's slot, in its scope (this tool instance's: a rebuilt tool
   * starts afresh); the open ones reach a tool disposal that comes before
   * theirs. The terminal service closes the session's shells itself: a
   * released slot is only forgotten.
   */
  private readonly slots = new PerSession<ShellSlot, SessionContext>(
    'the persistent shell slot',
    { outlivesCall: true },
    (session) => {
      const slot: ShellSlot = { session, overlay: {}, queue: Promise.resolve(), idleClock: new ShellIdleClock(this.config.idleCloseMs, session, () => this.closeIdle(slot)) };
      return slot;
    },
    (slot) => slot.idleClock.disarm(),
  );
  private disposed = false;

  constructor(
    @inject(TerminalService) private readonly terminals: TerminalService,
    @inject(EnvRegistry) private readonly env: EnvRegistry,
    @inject(CallPlanner) private readonly planner: CallPlanner,
    @inject(PersistentBashConfig) @optional() config?: Partial<PersistentBashConfig>,
    @inject(HostConfig) @optional() private readonly host?: HostConfig,
  ) {
    this.config = resolvePersistentBashConfig(config);
  }

  description(): string {
    return this.config.description;
  }

  run(args: PersistentBashArgs, ctx: CallContext): Promise<ToolResult> {
    const session = ctx.session;
    if (!session) return Promise.reject(new ToolError('bash requires an owning agent session'));
    const slot = this.slotFor(session);
    // Decided before the call queues (admission): the command policy's verdict and the shell's confinement.
    const admitted = this.planner.planShell({ tool: 'bash', command: args.command }, ctx);
    admitted.catch(() => undefined); // observed by `turn` once the queue reaches it
    slot.idleClock.disarm();
    const turn = slot.queue.then(() => admitted).then((plan) => this.runInShell(slot, args, ctx, plan));
    const queued = turn.catch(() => undefined);
    slot.queue = queued;
    // Only the session's last queued call starts the idle clock.
    void queued.then(() => slot.queue === queued && this.armIdleClose(slot));
    return turn;
  }

  /** This call's defaults, filled (`resolvePersistentCall`). */
  callDefaults(session: SessionContext): PersistentCallSpec {
    return resolvePersistentCall(session, this.config, this.host);
  }

  presentCall(args: unknown): CallPresentation | undefined {
    try {
      const a = args as Partial<PersistentBashArgs> | null;
      if (typeof a !== 'object' || a === null || typeof a.command !== 'string' || a.command.trim() === '') return undefined;
      const description = typeof a.description === 'string' && a.description.trim() !== '' ? a.description : undefined;
      return { title: description ?? 'bash', command: a.command, ...(description ? { description } : {}) };
    } catch {
      return undefined;
    }
  }

  presentResult(result: ToolResult): ResultPresentation | undefined {
    return presentPersistentResult(result);
  }

  /** Closes every shell this tool opened (tool deactivation or host disposal). */
  async dispose(): Promise<void> {
    this.disposed = true;
    const slots = this.slots.open();
    for (const slot of slots) slot.idleClock.disarm();
    await Promise.all(slots.map((slot) => this.reset(slot)));
  }

  private slotFor(session: SessionContext): ShellSlot {
    return this.slots.of(session);
  }

  private async runInShell(slot: ShellSlot, args: PersistentBashArgs, ctx: CallContext, plan: ShellPlan): Promise<ToolResult> {
    const started = Date.now();
    // Aborted while queued: nothing ran, so the shell and its state stay as they are.
    if (ctx.signal.aborted) return errorResult('tool call aborted');
    const { session } = slot;
    const { command } = args;
    let freshShell = false;
    const afterCancel = slot.cancelled === true;
    slot.cancelled = false;
    // Whatever state the old shell is in (even one that no longer runs our frame), restart discards it.
    if (args.restart === true) await this.reset(slot);
    if (slot.id !== undefined && !this.terminals.isAlive(session, slot.id)) {
      await this.reset(slot);
      freshShell = true;
    }
    // A shell keeps the confinement it started with: a call planned under another one needs a new shell.
    const key = plan.confinement === undefined ? undefined : (plan.confinement?.key ?? '');
    const sandboxChangedTo = slot.id !== undefined && key !== slot.confinementKey ? plan.sandbox?.mode : undefined;
    if (sandboxChangedTo !== undefined) await this.reset(slot);
    const spec = this.callDefaults(session);
    const { workdir } = spec;
    const overlay = this.env.collect({ session, mode: 'persistent', workdir, call: callInfoOf(ctx) });
    if (slot.id === undefined) {
      slot.id = await this.terminals.open(session, spec.backendType, {
        cwd: workdir,
        dshEnv: overlay,
        scrollbackChars: spec.scrollbackChars,
        ...(plan.confinement === undefined ? {} : { confinement: plan.confinement }),
        ...(args.restart === true ? { fresh: true } : {}),
      });
      slot.overlay = overlay;
      slot.confinementKey = key;
      slot.mode = plan.sandbox?.mode;
    }
    const previous = slot.overlay;
    const env = overlayDelta(previous, overlay);
    slot.overlay = overlay;
    const result = await this.terminals.send(session, slot.id, command, {
      timeoutMs: spec.timeoutMs,
      signal: ctx.signal,
      ...(ctx.onProgress ? { onProgress: withElapsed(ctx.onProgress, started) } : {}),
      ...(env ? { env } : {}),
    });
    // Input to a waiting command carries no exports: the shell still has the previous overlay.
    if (result.continuation) slot.overlay = previous;
    const end = result.end.kind;
    if (end === 'shell-exited' || end === 'timeout' || end === 'aborted' || end === 'framing-lost') await this.reset(slot);
    if (end === 'aborted') {
      // Nobody reads this result: the next one carries the reset.
      slot.cancelled = true;
      return errorResult('tool call aborted');
    }
    return renderSend(result, {
      maxOutputChars: spec.maxOutputChars,
      timeoutMs: spec.timeoutMs,
      durationMs: Date.now() - started,
      freshShell,
      ...(sandboxChangedTo !== undefined ? { sandboxChangedTo } : {}),
      ...(result.denied === true && slot.mode !== undefined ? { deniedUnder: slot.mode } : {}),
      ...(result.limitsReached !== undefined ? { limitsReached: result.limitsReached } : {}),
      ...(args.restart === true ? { restarted: true } : {}),
      ...(afterCancel ? { afterCancel: true } : {}),
      toolName: getToolMeta(this.constructor)?.name ?? 'bash',
    });
  }

  /** After the session's last queued call settled: its shell's idle clock starts (shell-idle-close.ts). */
  private armIdleClose(slot: ShellSlot): void {
    if (slot.id === undefined || this.disposed || !this.slots.isOpen(slot)) return;
    slot.idleClock.arm();
  }

  /** The shell and its session were idle for `idleCloseMs`: the shell goes, the session's next result says so. */
  private closeIdle(slot: ShellSlot): void {
    if (slot.id === undefined || this.disposed || !this.slots.isOpen(slot)) return;
    slot.session.notify(idleClosedNotice(this.config.idleCloseMs));
    void this.reset(slot);
  }

  /** Forgets the slot's shell (closing it if it is still open); the next call opens a fresh one. */
  private async reset(slot: ShellSlot): Promise<void> {
    const id = slot.id;
    slot.id = undefined;
    slot.overlay = {};
    if (id === undefined) return;
    try {
      await this.terminals.close(slot.session, id);
    } catch {
      // Already closed by the session's disposal.
    }
  }
}

/** Changed or new keys with their values, removed keys as '' (unset); undefined when nothing changed. */
function overlayDelta(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): Record<string, string> | undefined {
  const delta: Record<string, string> = {};
  for (const [key, value] of Object.entries(after)) if (before[key] !== value) delta[key] = value;
  for (const key of Object.keys(before)) if (!(key in after)) delta[key] = '';
  return Object.keys(delta).length > 0 ? delta : undefined;
}
