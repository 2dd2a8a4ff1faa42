import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResolvedSandbox, SandboxProvider } from '../../../src/providers/sandbox/sandbox-policy.js';

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

/** Unique per-run suffix for files a test expects not to exist. */
export function uniqueName(stem: string): string {
  return `${stem}-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
}
