import fs from 'node:fs';
import path from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { describeValue } from '../../../core/describe-value.js';
import { scopeOf, ScopeKey } from '../../../core/session-scope.js';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';
import { isSandboxMode, resolveSandboxConfig, SandboxConfig, SANDBOX_MODES } from './sandbox-config.js';
import type { ResolvedSandbox, SandboxPolicy } from '../../policy/sandbox/sandbox-policy.js';

/**
 * The default policy. Mode precedence: an approved one-shot mode, then the
 * session's override (`setMode`), then the deployment default (config,
 * `read-only`). The workspace root is the session cwd with symlinks
 * resolved, else the configured fallback root, else the process cwd.
 *
 * Obligations: a session override lives only as long as its session (it is
 * held in the session's scope, and ignored for a disposed session);
 * `decide` never widens on its own; bad modes throw instead of defaulting.
 */
@injectable()
export class LocalSandboxPolicy implements SandboxPolicy {
  readonly config: SandboxConfig;
  /** Each session's override, in its scope (this policy's own key). */
  private readonly overrideKey = new ScopeKey<{ mode?: SandboxMode }>('the sandbox mode override');

  constructor(@inject(SandboxConfig) @optional() config?: Partial<SandboxConfig>) {
    this.config = resolveSandboxConfig(config);
  }

  decide(input: { readonly session?: SessionContext; readonly mode?: SandboxMode } = {}): ResolvedSandbox {
    const { session, mode } = input;
    if (mode !== undefined) checkMode(mode);
    const override = session && !session.disposed ? scopeOf(session).peek(this.overrideKey)?.mode : undefined;
    return {
      mode: mode ?? override ?? this.config.mode,
      workspaceRoot: session?.cwd !== undefined ? realRoot(session.cwd) : fallbackWorkspaceRoot(this.config),
    };
  }

  setMode(session: SessionContext, mode: SandboxMode): void {
    checkMode(mode);
    if (session.disposed) return;
    scopeOf(session).get<{ mode?: SandboxMode }>(this.overrideKey, () => ({})).mode = mode;
  }

  /** The session's override, if any (diagnostics and tests). */
  overrideOf(session: SessionContext): SandboxMode | undefined {
    return scopeOf(session).peek(this.overrideKey)?.mode;
  }
}

/** The root for calls without a session cwd: `fallbackRoot`, else the process cwd, symlinks resolved. */
function fallbackWorkspaceRoot(config: Pick<SandboxConfig, 'fallbackRoot'>): string {
  return realRoot(config.fallbackRoot ?? process.cwd());
}

/**
 * `dir` with symlinks resolved before `..` is applied, as the kernel walks
 * it: libc realpath(3) (`realpathSync.native`; the JS `realpathSync`
 * normalizes `link/..` lexically first). A directory that does not exist
 * keeps its lexical absolute form: confining to a missing path fails the
 * command rather than widening to some other root.
 */
export function realRoot(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

function checkMode(mode: unknown): asserts mode is SandboxMode {
  if (!isSandboxMode(mode)) {
    throw new Error(`invalid sandbox mode: expected one of ${SANDBOX_MODES.join(', ')}, got ${describeValue(mode)}`);
  }
}
