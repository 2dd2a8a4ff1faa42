// A host with a persistent shell that nobody disposes must not hold the
// process for ever. node-pty keeps the event loop alive while a shell runs;
// whatever the idle close, the forgotten-shell watcher closes the shell once
// nothing else holds the process, and says so (DSH_FORGOTTEN_SHELL).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, ROOT } from '../support/built-server.js';

/** Opens a host and a session, runs one persistent call, prints its text, and never disposes anything. */
const PROGRAM = (idleCloseMs: number) => `
import 'reflect-metadata';
const { createHost, localEnvironment } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/index.js')).href)});
const host = await createHost(...localEnvironment({ workspace: process.cwd(), shell: 'persistent', persistent: { idleCloseMs: ${idleCloseMs} } }));
const session = host.openSession({ cwd: process.cwd() });
const result = await session.call('bash', { command: 'echo ran' });
console.log(result.content[0].text);
`;

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly afterMs: number;
}

function forgetful(idleCloseMs: number): { child: ChildProcess; printed: Promise<void>; exited: Promise<Finished> } {
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROGRAM(idleCloseMs)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let markPrinted!: () => void;
  const printed = new Promise<void>((resolve) => (markPrinted = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ran\n')) markPrinted();
  });
  const exited = new Promise<Finished>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr, afterMs: performance.now() - started })));
  return { child, printed, exited };
}

beforeAll(() => ensureBuilt());

test.each([0, 60_000])('a forgotten dispose() with a persistent shell (idleCloseMs %d): node exits on its own once nothing else holds it, and the warning says why', async (idleCloseMs) => {
  const forgotten = forgetful(idleCloseMs);
  try {
    const finished = await forgotten.exited;
    expect(finished).toMatchObject({ code: 0, stdout: 'ran\n' });
    expect(finished.stderr).toMatch(/DSH_FORGOTTEN_SHELL.*closing 1 persistent shell\(s\) nobody disposed \(bash \(pid \d+\)\)/s);
    // Start-up, one call, two idle checks: far below the bound (and the idle close) even on a loaded machine.
    expect(finished.afterMs).toBeLessThan(20_000);
  } finally {
    forgotten.child.kill('SIGKILL');
  }
}, 60_000);
