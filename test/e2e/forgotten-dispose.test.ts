// Issue 23 item 5: a host with a persistent shell that nobody disposes must
// not hold the process for ever. node-pty keeps the event loop alive while a
// shell runs; the persistent tool closes a shell idle for `idleCloseMs`, and
// then node exits on its own. The same program with idle close off is the
// control: still running when the first one has exited.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, ROOT } from './support/built-server.js';

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
  readonly afterMs: number;
}

function forgetful(idleCloseMs: number): { child: ChildProcess; printed: Promise<void>; exited: Promise<Finished> } {
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROGRAM(idleCloseMs)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  let markPrinted!: () => void;
  const printed = new Promise<void>((resolve) => (markPrinted = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ran\n')) markPrinted();
  });
  const exited = new Promise<Finished>((resolve) => child.once('exit', (code) => resolve({ code, stdout, afterMs: performance.now() - started })));
  return { child, printed, exited };
}

beforeAll(() => ensureBuilt());

test('a forgotten dispose() with a persistent shell: node exits on its own once the shell was idle for idleCloseMs', async () => {
  const control = forgetful(0);
  try {
    await control.printed;
    const idle = await forgetful(1000).exited;
    expect(idle).toMatchObject({ code: 0, stdout: 'ran\n' });
    // Start-up, one call, 1 s idle: far below the bound even on a loaded machine.
    expect(idle.afterMs).toBeLessThan(20_000);
    // The control printed its result long ago but is still held by its shell.
    expect(control.child.exitCode).toBeNull();
    expect(control.child.signalCode).toBeNull();
  } finally {
    control.child.kill('SIGKILL');
    await control.exited;
  }
}, 60_000);
