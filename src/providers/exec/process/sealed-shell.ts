import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where a spawn puts the sealed shell's descriptor; the program run is `/proc/self/fd/<this>`. */
export const SEALED_SHELL_FD = 6;

/**
 * A copy of /bin/sh that the sandbox can run but not read, held only by an
 * open descriptor (the file is unlinked at once). Exec'ing a program the
 * process may not read makes it non-dumpable (kernel `would_dump`): inside
 * bwrap, where every capability is dropped, no other process of the
 * sandbox may then open its /proc/<pid>/fd entries, read its memory or
 * environ, ptrace it or take its descriptors with pidfd_getfd, though they
 * all run as the same uid. The namespace reaper runs as this program, so
 * its report channel stays out of the command's reach. A command it starts
 * is dumpable again (bash is readable).
 */
interface SealedShell {
  readonly fd: number;
}

let sealed: SealedShell | null | undefined;

/**
 * The sealed shell, made and proven on first use (one copy, one spawn per
 * process); null when this machine cannot run it (no /proc, a `noexec`
 * temp dir): the reaper then runs as plain /bin/sh and its channel is
 * reachable through ptrace-class access (see docs/security/channels.md).
 */
export function sealedShell(): SealedShell | null {
  sealed ??= makeSealedShell();
  return sealed;
}

function makeSealedShell(): SealedShell | null {
  let dir: string | undefined;
  let fd: number | undefined;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-sealed-'));
    const copy = path.join(dir, 'sh');
    fs.copyFileSync(fs.realpathSync('/bin/sh'), copy);
    fs.chmodSync(copy, 0o500);
    // Opened while readable; execute-only from then on, and nameless.
    fd = fs.openSync(copy, 'r');
    fs.chmodSync(copy, 0o111);
    fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
    // Every slot filled: node takes a hole for something other than 'ignore'.
    const stdio: Array<'ignore' | number> = Array.from({ length: SEALED_SHELL_FD }, () => 'ignore' as const);
    stdio.push(fd);
    const proof = spawnSync(sealedProgram(), ['-c', 'exit 7'], { stdio, timeout: 5_000 });
    if (proof.status === 7) return { fd };
  } catch {
    // Fall through: no sealed shell on this machine.
  }
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  if (fd !== undefined) fs.closeSync(fd);
  return null;
}

/** The path a spawned process runs the sealed shell by (its own descriptor). */
export function sealedProgram(): string {
  return `/proc/self/fd/${SEALED_SHELL_FD}`;
}
