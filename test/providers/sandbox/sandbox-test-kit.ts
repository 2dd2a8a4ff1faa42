import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BwrapSandboxProvider } from '../../../src/providers/sandbox/bwrap-sandbox-provider.js';
import { LocalSandboxPolicy } from '../../../src/providers/sandbox/local-sandbox-policy.js';
import { SandboxConfinement } from '../../../src/providers/sandbox/sandbox-confinement.js';
import type { ResolvedSandbox, SandboxProvider } from '../../../src/providers/sandbox/sandbox-policy.js';
import { LocalShellExecutor } from '../../../src/providers/shell/local-shell-executor.js';
import type { ExecRequest, RunResult, SandboxMode } from '../../../src/providers/shell/shell-executor.js';

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
  /** Resolves and runs `request` in the workspace. */
  run(request: ExecRequest): Promise<RunResult>;
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
    run: (request) => executor.run(executor.resolve({ workspaceRoot: ws.dir, ...request })),
    dispose: async () => {
      await executor.dispose();
      confinement.dispose();
      ws.remove();
    },
  };
}
