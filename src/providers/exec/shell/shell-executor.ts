import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { CommandConfinement, ResourceLimitHit } from '../process/command-confinement.js';
import { checkExecRequest } from './exec-spec-resolver.js';
import { currentToolCall } from '../../../core/tool-call-context.js';

export type { CommandConfinement, CommandLimits, ResourceLimitHit, WrapOptions } from '../process/command-confinement.js';

/** What a caller asks for; `checkRequest()` turns it into a full `ExecSpec`. */
export interface ExecRequest {
  readonly command: string;
  readonly workdir?: string;
  readonly timeoutMs?: number;
  /** Trusted caller environment, applied after the model-friendly settings. */
  readonly env?: Readonly<Record<string, string>>;
  /** Managed `DSH_*` overlay, applied last. */
  readonly dshEnv?: Readonly<Record<string, string>>;
  /** Data for the child's stdin; `/dev/null` when absent. */
  readonly stdin?: string;
  /** The owning session: its own spill directory, its default confinement, a container's per-session state. */
  readonly session?: SessionContext;
  /**
   * How the command is confined, as its plan decided (see the call planner):
   * `null` runs it unconfined; absent, the policy's fallback plan applies
   * (`FallbackPlanner`, when the composition has one).
   */
  readonly confinement?: CommandConfinement | null;
}

/** The limits a spec is checked against: an executor's defaults and caps. */
export type ExecLimits = Pick<ExecutorConfig, 'cwd' | 'timeoutMs' | 'maxTimeoutMs'>;

/**
 * A request checked against an executor's limits: every default filled,
 * every cap applied, immutable. Only `ExecSpec.check` makes one (the
 * constructor is private and the class carries a private field, so no object
 * literal passes for it): an executor handed an `ExecSpec` of its own limits
 * applies it as it is and checks nothing again.
 */
export class ExecSpec implements ExecRequest {
  readonly #limits: ExecLimits;
  declare readonly command: string;
  declare readonly workdir: string;
  declare readonly timeoutMs: number;
  declare readonly env?: Readonly<Record<string, string>>;
  declare readonly dshEnv?: Readonly<Record<string, string>>;
  declare readonly stdin?: string;
  declare readonly session?: SessionContext;
  declare readonly confinement?: CommandConfinement | null;

  private constructor(fields: ExecRequest & { readonly workdir: string; readonly timeoutMs: number }, limits: ExecLimits) {
    this.#limits = limits;
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) Object.defineProperty(this, key, { value, enumerable: true });
    Object.freeze(this);
  }

  /** Checks `request` and fills its defaults; throws a model-readable `Error` on bad input (see exec-spec-resolver.ts). */
  static check(request: ExecRequest, limits: ExecLimits): ExecSpec {
    return new ExecSpec(checkExecRequest(withCallSession(request), limits), limits);
  }

  /** `given` as an executor of `limits` may apply it: as is when it was checked against them, else checked now (a copy, a hand-made spec). */
  static of(given: ExecRequest, limits: ExecLimits): ExecSpec {
    // `#limits in`: a look-alike made from the prototype has no private field, and is checked like any hand-made spec.
    return typeof given === 'object' && given !== null && #limits in given && given.#limits === limits ? given : ExecSpec.check(given, limits);
  }

  /** This spec with other request fields (the managed `DSH_*` overlay, a confinement); the checked fields stay as they are. */
  with(fields: Pick<ExecRequest, 'dshEnv' | 'confinement'>): ExecSpec {
    return new ExecSpec({ ...this, ...fields }, this.#limits);
  }
}

/** A request without a session, made during a session's tool call, is that session's (src/core/tool-call-context.ts). */
function withCallSession(request: ExecRequest): ExecRequest {
  if (request === null || typeof request !== 'object' || request.session !== undefined) return request;
  const session = currentToolCall()?.session;
  return session === undefined ? request : { ...request, session };
}

/** Progress of a foreground run; `lastLine` is the last complete non-empty line. */
export interface ExecProgress {
  readonly bytes: number;
  readonly lastLine?: string;
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  /** Called (throttled) as output arrives. No cost when absent. */
  readonly onProgress?: (progress: ExecProgress) => void;
  /**
   * Asked once when the timeout fires while the command still runs. Returning
   * true keeps it running: `run` then resolves at once with the output so far
   * and `continuation`, the live handle of the rest, which the caller owns.
   */
  readonly keepOnTimeout?: () => boolean;
  /**
   * With `keepOnTimeout`: ask it this early already (before most MCP clients
   * give up on a call at 60 s: docs/interop.md), not only at the timeout. A
   * false answer lets the command run on to its timeout, where it is asked again.
   */
  readonly promoteAfterMs?: number;
  /**
   * With `keepOnTimeout`: ask it when `signal` aborts too (the caller gave up
   * on the call, docs/contract.md §14): true keeps the command running as a
   * continuation instead of stopping it.
   */
  readonly promoteOnAbort?: boolean;
}

/** Per-stream capture of a foreground run. */
export interface StreamCapture {
  /** The retained text: everything, or the tail when truncated. */
  readonly text: string;
  /** Total bytes the stream produced. */
  readonly bytes: number;
  /** True when `text` is only the tail. */
  readonly truncated: boolean;
  /** The complete stream on disk; undefined when the spill was dropped (over `maxSpillBytes`) or never needed. */
  readonly spillPath?: string;
}

/** Outcome of a foreground run. A non-zero exit is a normal result, not an error. */
export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Only the executor's own timeout sets this. */
  readonly timedOut: boolean;
  /** Only a caller abort sets this. */
  readonly aborted: boolean;
  readonly timeoutMs: number;
  readonly durationMs: number;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  /** Full stdout on disk when truncated; undefined when the spill was dropped. */
  readonly stdoutSpillPath?: string;
  readonly stderrSpillPath?: string;
  /** Set when the command ran confined: true when it failed with the confinement's denial signature. */
  readonly confinementDenied?: boolean;
  /** Progress updates (bare-`\r` redraws) dropped from both streams; absent when none. */
  readonly collapsedUpdates?: number;
  /** Processes still alive when the command ended, killed then (none when absent). */
  readonly leftoversKilled?: number;
  /** Resource limits of the confinement the command ran into (none when absent). */
  readonly limitsReached?: readonly ResourceLimitHit[];
  /**
   * Set when `keepOnTimeout` kept the command running: its reads start after
   * the output in this result (no byte shown twice or skipped). Exit fields
   * are null and `timedOut` false: the command has not ended.
   */
  readonly continuation?: BackgroundProcess;
}

/** How a background process ended. */
export interface ProcessOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Set when the process never started (spawn failure) or failed outside its own exit. */
  readonly error?: string;
}

/** One incremental read of a background process. */
export interface OutputDelta {
  /** New stdout, then (if any) a `[stderr]` line and new stderr. Empty when nothing new. */
  readonly text: string;
  /** True when bytes since the previous read were dropped from memory. */
  readonly lost: boolean;
  /** Spill files holding the complete streams (absent when unavailable). */
  readonly spillPaths: readonly string[];
}

/** How a read shows both streams: stdout, then (when there is any) stderr under its own `[stderr]` line. */
export function joinStreams(stdout: string, stderr: string): string {
  if (stderr === '') return stdout;
  return `${stdout}${stdout === '' || stdout.endsWith('\n') ? '' : '\n'}[stderr]\n${stderr}`;
}

/** The line reporting processes killed because they outlived their command. */
export function leftoverNotice(count: number): string {
  return `[killed ${count} leftover ${count === 1 ? 'process' : 'processes'} when the command ended; use run_in_background to keep one running]`;
}

/** The line reporting a resource limit the command reached (just before the exit marker). */
export function resourceLimitNotice(hit: ResourceLimitHit): string {
  const what = hit.kind === 'processes' ? 'process' : 'memory';
  return `[resource limit: the command reached the sandbox's ${what} limit (${hit.limit})]`;
}

/** A live background process started by `ShellExecutor.start`. */
export interface BackgroundProcess {
  readonly pid: number | undefined;
  /** Consuming read: consecutive reads never re-deliver bytes. */
  readOutput(): OutputDelta;
  /** The retained output, unconsumed (the operator console's tail). */
  peekOutput?(): string;
  /**
   * Kills the whole process group (TERM, then KILL after the grace) and awaits the end. False once
   * finished, and when the command had already exited on its own (only its output was still draining).
   */
  kill(): Promise<boolean>;
  /** Settles once the process (group leader) has exited and output is drained. Never rejects. */
  readonly done: Promise<ProcessOutcome>;
  readonly finished: boolean;
}

/**
 * Runs shell commands. Implementations: `LocalShellExecutor` (default; it
 * applies each spec's confinement), `ContainerShellExecutor`. `checkRequest`
 * fills defaults explicitly so `run`/`start` never hide them; what a call may
 * do is decided before, by the call planner, and arrives in the request.
 */
export interface ShellExecutor {
  /** Checks the request, fills defaults and applies caps; throws on invalid input. */
  checkRequest(request: ExecRequest): ExecSpec;
  /** Foreground run. Rejects only for infrastructure failures (missing workdir, missing bash, pre-aborted signal). */
  run(spec: ExecSpec, options?: RunOptions): Promise<RunResult>;
  /** Background start: a live handle at once, no timeout. */
  start(spec: ExecSpec): Promise<BackgroundProcess>;
  dispose?(): Promise<void>;
}

export const ShellExecutor: ServiceIdentifier<ShellExecutor> = Symbol.for('dsh.ShellExecutor');

/** Executor limits; every field optional in config, defaults in `DEFAULT_EXECUTOR_CONFIG`. */
export interface ExecutorConfig {
  readonly cwd?: string;
  readonly timeoutMs: number;
  readonly maxTimeoutMs: number;
  readonly maxOutputBytes: number;
  readonly maxSpillBytes: number;
  /** Finished spill files kept on disk at most (oldest deleted first; the newest always stays). */
  readonly maxRetainedSpillBytes: number;
  readonly graceMs: number;
  /** Env names kept even though they look like credentials. */
  readonly allowEnv: readonly string[];
  readonly shellPath: string;
  /** Leave spill files on disk at dispose (one-off CLI calls print their paths). */
  readonly keepSpills: boolean;
  /** Keep one fresh shell per session started ahead of its next one-shot call (see prestarted-shell.ts). */
  readonly prestart: boolean;
  /** How long a pre-started shell waits for a call before it is stopped. */
  readonly prestartIdleMs: number;
}

export const DEFAULT_EXECUTOR_CONFIG: ExecutorConfig = Object.freeze({
  timeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputBytes: 64_000,
  maxSpillBytes: 64 * 1024 * 1024,
  maxRetainedSpillBytes: 1024 * 1024 * 1024,
  graceMs: 3_000,
  allowEnv: [],
  shellPath: 'bash',
  keepSpills: false,
  prestart: true,
  prestartIdleMs: 30_000,
});

export const ExecutorConfig: ServiceIdentifier<Partial<ExecutorConfig>> = Symbol.for('dsh.ExecutorConfig');
