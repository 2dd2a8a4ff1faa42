import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAIN_JS, ROOT } from '../../support/built-server.js';

/** The descriptors a parent opens before starting the server: a low one and a high one. */
export const INHERITED_FDS = [300, 1000] as const;

/** A command that tries to write through every inherited descriptor, then lists what it holds. */
export const WRITE_THROUGH_INHERITED = `${INHERITED_FDS.map((fd) => `echo leaked-${fd} >&${fd}`).join('; ')}; echo fds: $(ls /proc/self/fd | sort -n | tr '\\n' ' ')`;

export interface LeakRig {
  /** The workspace (real path) the commands run in. */
  readonly workspace: string;
  /** The file every inherited descriptor appends to. */
  readonly target: string;
  /** What reached the file. */
  leaked(): string;
  remove(): void;
}

export function leakRig(): LeakRig {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-descriptors-')));
  const workspace = path.join(dir, 'ws');
  const target = path.join(dir, 'outside.log');
  writeFileSync(target, '');
  mkdirSync(workspace);
  return {
    workspace,
    target,
    leaked: () => readFileSync(target, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node <args>` from a bash that first opens INHERITED_FDS appending to
 * `target` (as `exec 300>>file` would), plus any `extraOpens` redirections.
 */
export function nodeWithInheritedFds(target: string, args: readonly string[], cwd = ROOT, extraOpens = ''): Promise<Finished> {
  const opens = `${INHERITED_FDS.map((fd) => `${fd}>>"$1"`).join(' ')} ${extraOpens}`;
  const child = spawn('bash', ['-c', `exec ${opens}; shift; exec "$@"`, 'opener', target, process.execPath, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** `dsh-tools <options> call bash <command>` (the built CLI) with the inherited descriptors open. */
export function cliCallWithInheritedFds(rig: LeakRig, options: readonly string[], command: string, extraOpens = ''): Promise<Finished> {
  const args = JSON.stringify({ command, description: 'Write through inherited descriptors' });
  return nodeWithInheritedFds(rig.target, [MAIN_JS, '--workspace', rig.workspace, ...options, 'call', 'bash', args], ROOT, extraOpens);
}

/** The descriptors a command listed (`fds: …` of WRITE_THROUGH_INHERITED). */
export function listedFds(output: string): number[] {
  const line = /fds: ([0-9 ]*)/.exec(output);
  return line === null ? [] : line[1]!.trim().split(/\s+/).map(Number);
}
