import path from 'node:path';
import { inject, injectable, optional, preDestroy } from 'inversify';
import { describeValue } from '../../container/describe-value.js';
import { LocalShellExecutor } from '../shell/local-shell-executor.js';
import {
  ExecutorConfig,
  type BackgroundProcess,
  type ExecSpec,
  type RunOptions,
  type RunResult,
  type SandboxMode,
} from '../shell/shell-executor.js';
import { fallbackWorkspaceRoot } from './local-sandbox-policy.js';
import { isSandboxMode, resolveSandboxConfig, SandboxConfig, SANDBOX_MODES } from './sandbox-config.js';
import { SandboxProvider, SandboxUnavailableError, type ResolvedSandbox } from './sandbox-policy.js';
import { Redactor } from '../output-filter/redactor.js';

export { SANDBOX_UNAVAILABLE, SandboxUnavailableError } from './sandbox-policy.js';

/**
 * The local executor's mechanics (process groups, bounded output, scrubbed
 * env, timeouts) with every spawn confined by the `SandboxProvider`, under
 * `spec.sandboxMode` or else this executor's default mode (`sandboxMode`,
 * from `SandboxConfig`). The writable root is `spec.workspaceRoot`, else the
 * configured fallback root.
 *
 * Obligations: fail closed — when the provider is unusable, `run` and `start`
 * reject with a `SandboxUnavailableError` (`code` `SANDBOX_UNAVAILABLE`) and
 * nothing is spawned; only `danger-full-access` runs unconfined, and it needs
 * no backend. Foreground results carry the mode they ran under and
 * `sandboxDenied` (a failed command whose stderr has the denial signature).
 */
@injectable()
export class SandboxedShellExecutor extends LocalShellExecutor {
  readonly sandboxMode: SandboxMode;
  private readonly fallbackRoot: string | undefined;

  constructor(
    @inject(SandboxProvider) private readonly provider: SandboxProvider,
    @inject(ExecutorConfig) @optional() config?: Partial<ExecutorConfig>,
    @inject(SandboxConfig) @optional() sandboxConfig?: Partial<SandboxConfig>,
    @inject(Redactor) @optional() redactor?: Redactor,
  ) {
    super(config, redactor);
    const resolved = resolveSandboxConfig(sandboxConfig);
    this.sandboxMode = resolved.mode;
    this.fallbackRoot = resolved.fallbackRoot ?? this.config.cwd;
  }

  override async run(spec: ExecSpec, options?: RunOptions): Promise<RunResult> {
    const sandbox = this.confinement(spec);
    const result = await super.run(spec, options);
    const failed = result.exitCode !== 0 || result.signal !== null;
    const denied = sandbox.mode !== 'danger-full-access' && failed && this.provider.isDenial(result.stderr);
    return { ...result, sandboxMode: sandbox.mode, sandboxDenied: denied };
  }

  override async start(spec: ExecSpec): Promise<BackgroundProcess> {
    this.confinement(spec);
    return super.start(spec);
  }

  /** Redeclared: Inversify does not inherit lifecycle hooks. */
  @preDestroy()
  override dispose(): Promise<void> {
    return super.dispose();
  }

  protected override commandLine(argv: string[], spec: ExecSpec): string[] {
    const sandbox = this.confinement(spec);
    return sandbox.mode === 'danger-full-access' ? argv : this.provider.wrap(argv, sandbox);
  }

  /** The confinement of `spec`; throws when it cannot be honoured. */
  private confinement(spec: ExecSpec): ResolvedSandbox {
    if (spec === null || typeof spec !== 'object') throw new Error('invalid command: expected a non-empty string');
    const mode = spec.sandboxMode ?? this.sandboxMode;
    if (!isSandboxMode(mode)) {
      throw new Error(`invalid sandboxMode: expected one of ${SANDBOX_MODES.join(', ')}, got ${describeValue(mode)}`);
    }
    const root = spec.workspaceRoot;
    if (root !== undefined && (typeof root !== 'string' || !path.isAbsolute(root) || root.includes('\0'))) {
      throw new Error(`invalid workspaceRoot: expected an absolute path, got ${describeValue(root)}`);
    }
    if (mode !== 'danger-full-access') {
      const reason = this.provider.unavailableReason();
      if (reason !== null) throw new SandboxUnavailableError(mode, reason);
    }
    return { mode, workspaceRoot: root ?? fallbackWorkspaceRoot({ fallbackRoot: this.fallbackRoot }) };
  }
}
