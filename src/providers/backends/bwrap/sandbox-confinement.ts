import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject, injectable, optional, preDestroy } from 'inversify';
import { describeValue } from '../../../core/describe-value.js';
import { scopeOf, ScopeKey } from '../../../core/session-scope.js';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';
import { CgroupLimiter } from './cgroup-limiter.js';
import type { ConfinedCommand, Confinement, ConfinementRequest, WrapOptions } from '../../policy/sandbox/confinement.js';
import { isSandboxMode, resolveSandboxConfig, SandboxConfig, SANDBOX_MODES } from './sandbox-config.js';
import { SandboxPolicy, SandboxProvider, SandboxUnavailableError, type ResolvedSandbox } from '../../policy/sandbox/sandbox-policy.js';
import { checkNotSystemRoot, WorkspacePin } from './workspace-pin.js';

/** Per-session state: the pinned workspace and the private temp dir. */
interface SessionState {
  pin?: WorkspacePin;
  tmp?: string;
}

/** Each session's state, in its scope; removed (synchronously) when the session closes. */
const SESSION_STATE = new ScopeKey<SessionState>('the sandbox state (pinned workspace, private /tmp)');

/**
 * The default `Confinement`: the session's mode from the `SandboxPolicy`,
 * argv wrapped by the `SandboxProvider` (bwrap). It pins each session's
 * workspace at its first call (real path, device and inode) and refuses
 * later calls whose workspace is no longer that directory; it refuses
 * system directories as confined workspaces; and it gives each session a
 * private temp dir (mode 0700, under the OS temp dir) that the provider
 * mounts at `/tmp`, removed when the session is disposed (the host's own
 * one at `dispose()`). A caller that resolved the mode and the workspace
 * (the call planner) passes both, and the policy is not asked again.
 */
@injectable()
export class SandboxConfinement implements Confinement {
  readonly defaultMode: SandboxMode;
  /** States of sessions still open, for a host disposal that comes before theirs. */
  private readonly open = new Set<SessionState>();
  /** The host's own calls (no session): a temp dir only, no pin (there is no session start). */
  private readonly host: SessionState = {};
  private readonly limits: SandboxConfig['limits'];
  private limiter: CgroupLimiter | undefined;

  constructor(
    @inject(SandboxPolicy) private readonly policy: SandboxPolicy,
    @inject(SandboxProvider) private readonly provider: SandboxProvider,
    @inject(SandboxConfig) @optional() config?: Partial<SandboxConfig>,
  ) {
    const resolved = resolveSandboxConfig(config);
    this.defaultMode = resolved.mode;
    this.limits = resolved.limits;
  }

  forSession(session: SessionContext | undefined, request: ConfinementRequest = {}): ConfinedCommand | undefined {
    const { mode: asked, workspaceRoot: given } = request;
    if (asked !== undefined && !isSandboxMode(asked)) {
      throw new Error(`invalid sandboxMode: expected one of ${SANDBOX_MODES.join(', ')}, got ${describeValue(asked)}`);
    }
    if (given !== undefined && (typeof given !== 'string' || !path.isAbsolute(given) || given.includes('\0'))) {
      throw new Error(`invalid workspaceRoot: expected an absolute path, got ${describeValue(given)}`);
    }
    const resolved =
      asked !== undefined && given !== undefined ? undefined : this.policy.decide({ ...(session ? { session } : {}), ...(asked ? { mode: asked } : {}) });
    const mode = asked ?? resolved!.mode;
    // Real already: the policy resolved it (the planner's root is the policy's too).
    const root = given ?? resolved!.workspaceRoot;
    const state = session ? this.stateOf(session) : undefined;
    if (state) {
      state.pin ??= WorkspacePin.of(root);
      if (mode !== 'danger-full-access') state.pin.verifyReal(root);
    }
    if (mode === 'danger-full-access') return undefined;
    const reason = this.provider.unavailableReason();
    if (reason !== null) throw new SandboxUnavailableError(mode, reason);
    checkNotSystemRoot(root, { real: true });
    const privateTmp = this.privateTmp(state ?? this.host);
    const base: ResolvedSandbox = { mode, workspaceRoot: root, privateTmp };
    const provider = this.provider;
    return {
      mode,
      workspaceRoot: root,
      key: `${mode}\0${root}`,
      wrapArgv: (argv: readonly string[], options: WrapOptions = {}) =>
        provider.wrap(argv, {
          ...base,
          ...(options.readable ? { readable: options.readable } : {}),
          ...(options.cwd ? { cwd: options.cwd } : {}),
          ...(options.limits ? { cgroup: options.limits } : {}),
          ...(options.termSparesWrapper === true ? { termSparesWrapper: true } : {}),
        }),
      newLimitGroup: () => (this.limiter ??= new CgroupLimiter(this.limits)).create(),
      isDenial: (output: string) => provider.isDenial(output),
      ...(provider.pidNamespace === true ? { pidNamespace: true } : {}),
    };
  }

  /** Removes every private temp dir and every limit group still held (host disposal). */
  @preDestroy()
  async dispose(): Promise<void> {
    for (const state of [...this.open, this.host]) removeTmp(state);
    this.open.clear();
    await this.limiter?.dispose();
  }

  private stateOf(session: SessionContext): SessionState {
    if (session.disposed) throw new Error(`session ${session.id} is disposed`);
    return scopeOf(session).get(
      SESSION_STATE,
      () => {
        const fresh: SessionState = {};
        this.open.add(fresh);
        return fresh;
      },
      (state) => {
        this.open.delete(state);
        removeTmp(state);
      },
    );
  }

  private privateTmp(state: SessionState): string {
    if (state.tmp === undefined || !fs.existsSync(state.tmp)) {
      // mkdtemp: mode 0700 and a name no other process chose; kept for the session's later calls.
      state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-sandbox-tmp-'));
    }
    return state.tmp;
  }
}

function removeTmp(state: SessionState): void {
  const dir = state.tmp;
  state.tmp = undefined;
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
}
