import type { SandboxMode } from '../core/sandbox-mode.js';
import {
  ExecSpec,
  joinStreams,
  type BackgroundProcess,
  type ExecRequest,
  type RunOptions,
  type RunResult,
  type ShellExecutor,
} from '../providers/exec/shell/shell-executor.js';

/** What a scripted run answers: a partial result merged over a clean exit. */
export type ScriptedAnswer = Partial<RunResult> | ((spec: ExecSpec) => Partial<RunResult>);

/**
 * A ShellExecutor for unit tests: records every spec and answers from a
 * script (by exact command, else the fallback) without spawning anything.
 * Background starts settle at once with the scripted output.
 */
export class ScriptedExecutor implements ShellExecutor {
  readonly runs: ExecSpec[] = [];
  readonly starts: ExecSpec[] = [];
  private readonly answers = new Map<string, ScriptedAnswer>();

  constructor(
    script: Record<string, ScriptedAnswer> = {},
    private readonly fallback: ScriptedAnswer = {},
    /** Pretend to run in a sandbox of this default mode: `testingEnvironment({ executor })` then composes a scripted sandbox. */
    readonly sandboxMode?: SandboxMode,
  ) {
    for (const [command, answer] of Object.entries(script)) this.answers.set(command, answer);
  }

  /** Adds or replaces the answer for one command. */
  on(command: string, answer: ScriptedAnswer): this {
    this.answers.set(command, answer);
    return this;
  }

  checkRequest(request: ExecRequest): ExecSpec {
    return ExecSpec.check(request, SCRIPTED_LIMITS);
  }

  async run(spec: ExecSpec, options: RunOptions = {}): Promise<RunResult> {
    if (options.signal?.aborted) throw new Error('aborted before start');
    this.runs.push(spec);
    return this.answer(spec);
  }

  async start(spec: ExecSpec): Promise<BackgroundProcess> {
    this.starts.push(spec);
    const result = this.answer(spec);
    let delivered = false;
    return {
      pid: undefined,
      finished: true,
      readOutput: () => {
        if (delivered) return { text: '', lost: false, spillPaths: [] };
        delivered = true;
        return { text: joinStreams(result.stdout, result.stderr), lost: false, spillPaths: [] };
      },
      kill: async () => false,
      done: Promise.resolve({ exitCode: result.exitCode, signal: result.signal }),
    };
  }

  private answer(spec: ExecSpec): RunResult {
    const scripted = this.answers.get(spec.command) ?? this.fallback;
    const partial = typeof scripted === 'function' ? scripted(spec) : scripted;
    return runResult({ timeoutMs: spec.timeoutMs, ...partial });
  }
}

/** A scripted run's defaults: `/scripted`, two minutes, no cap. */
const SCRIPTED_LIMITS = Object.freeze({ cwd: '/scripted', timeoutMs: 120_000, maxTimeoutMs: Number.MAX_SAFE_INTEGER });

/** A complete `RunResult`: a clean, instant exit with no output, overridden by `partial`. */
export function runResult(partial: Partial<RunResult> = {}): RunResult {
  return {
    stdout: '',
    stderr: '',
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    timeoutMs: 120_000,
    durationMs: 0,
    stdoutTruncated: false,
    stderrTruncated: false,
    ...partial,
  };
}
