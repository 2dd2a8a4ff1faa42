import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BwrapSandboxProvider } from '../../src/providers/backends/bwrap/bwrap-sandbox-provider.js';
import { LocalSandboxPolicy } from '../../src/providers/backends/bwrap/local-sandbox-policy.js';
import { SandboxConfinement } from '../../src/providers/backends/bwrap/sandbox-confinement.js';
import type { ResolvedSandbox, SandboxProvider } from '../../src/providers/policy/sandbox/sandbox-policy.js';
import { LocalShellExecutor } from '../../src/providers/backends/local/local-shell-executor.js';
import type { ExecRequest, ExecSpec, RunResult } from '../../src/providers/exec/shell/shell-executor.js';
import type { SandboxMode } from '../../src/core/sandbox-mode.js';
import type { ConfinedCommand, Confinement } from '../../src/providers/policy/sandbox/confinement.js';

/** A request with the mode a planner would have decided for it (absent: the session's). */
export type ModeRequest = ExecRequest & { readonly sandboxMode?: SandboxMode };

/** A run's result with the mode it was planned under and its denial, as the bash tool reports them. */
export type ConfinedResult = RunResult & { readonly sandboxMode: SandboxMode; readonly sandboxDenied: boolean };

/** `request` planned as the call planner plans it: the confinement decided for its mode in `workspace`. */
export function planConfined(executor: LocalShellExecutor, confinement: Confinement, workspace: string, request: ModeRequest): ExecSpec {
  const { sandboxMode, ...rest } = request;
  const confined = confinement.forSession(rest.session, { ...(sandboxMode ? { mode: sandboxMode } : {}), workspaceRoot: workspace });
  return executor.checkRequest({ ...rest, confinement: confined ?? null });
}

/** Plans and runs `request`; the result says the mode it ran under and whether it was denied. */
export async function runConfined(executor: LocalShellExecutor, confinement: Confinement, workspace: string, request: ModeRequest): Promise<ConfinedResult> {
  const spec = planConfined(executor, confinement, workspace, request);
  const result = await executor.run(spec);
  const mode = (spec.confinement as ConfinedCommand | null | undefined)?.mode ?? 'danger-full-access';
  return { ...result, sandboxMode: mode, sandboxDenied: result.confinementDenied === true };
}

/** A fresh real-path directory under the system temp dir, and its removal. */
export function tempWorkspace(prefix = 'dsh-sandbox-'): { dir: string; remove: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A provider that reports `reason` as unavailable and records every wrap it is asked for. */
export class UnavailableProvider implements SandboxProvider {
  readonly name = 'unavailable';
  readonly wraps: ResolvedSandbox[] = [];

  constructor(private readonly reason = 'bwrap was not found; install the bubblewrap package') {}

  unavailableReason(): string | null {
    return this.reason;
  }

  wrap(argv: readonly string[], sandbox: ResolvedSandbox): string[] {
    this.wraps.push(sandbox);
    return [...argv];
  }

  isDenial(): boolean {
    return false;
  }
}

/** A usable provider that confines nothing and has no PID namespace; it records every argv it wraps. */
export class PassThroughProvider implements SandboxProvider {
  readonly name = 'pass-through';

  constructor(private readonly wraps: string[][] = []) {}

  unavailableReason(): string | null {
    return null;
  }

  wrap(argv: readonly string[]): string[] {
    this.wraps.push([...argv]);
    return [...argv];
  }

  isDenial(): boolean {
    return false;
  }
}

/** Unique per-run suffix for files a test expects not to exist. */
export function uniqueName(stem: string): string {
  return `${stem}-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
}

/** A local executor confined by real bwrap (in `mode`, the policy's default otherwise) in a fresh workspace. */
export interface ConfinedRig {
  readonly ws: { dir: string; remove: () => void };
  readonly executor: LocalShellExecutor;
  /** Plans (in its mode, else the session's) and runs `request` in the workspace. */
  run(request: ModeRequest): Promise<ConfinedResult>;
  /** Disposes the executor and the confinement, then removes the workspace. */
  dispose(): Promise<void>;
}

export function confinedRig(mode?: SandboxMode): ConfinedRig {
  const ws = tempWorkspace();
  const confinement = new SandboxConfinement(new LocalSandboxPolicy({}), new BwrapSandboxProvider({}), mode ? { mode } : {});
  const executor = new LocalShellExecutor({ cwd: ws.dir, graceMs: 200 }, confinement);
  return {
    ws,
    executor,
    run: (request) => runConfined(executor, confinement, ws.dir, request),
    dispose: async () => {
      await executor.dispose();
      confinement.dispose();
      ws.remove();
    },
  };
}
