// node-pty destroys its read stream on the master 200 ms after the shell's
// exit if the stream has not ended by then. A CI run's event loop stalled
// past that right after `exit 137`, and bash's last word (`exit`) was lost.
// Here the stall is made on purpose: the loop is held until the shell has
// exited, then the stream is destroyed as node-pty's timer does, before
// any turn of the loop could read the master (and from the poll phase, a
// data callback's continuation, where one immediate would run before the
// next read).
import { existsSync, readFileSync } from 'node:fs';
import type { IPty } from 'node-pty';
import { requirePty } from '../../../../src/providers/backends/pty/pty-loader.js';
import { readLastOutputBeforeDestroy } from '../../../../src/providers/backends/pty/pty-last-output.js';

/** True once `pid` has exited (reaped by node-pty's waiter, or a zombie waiting for it). */
function exited(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Runs `command` in a fresh `bash -i`, holds the loop until bash has exited, destroys the stream as node-pty's timer would; resolves with all output read and the exit code. */
async function lastOutput(command: string, guarded: boolean): Promise<{ output: string; exitCode: number }> {
  const { spawn } = await requirePty();
  const pty: IPty = spawn('/bin/bash', ['--noprofile', '--norc', '--noediting', '-i'], { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ' } });
  if (guarded) readLastOutputBeforeDestroy(pty);
  let output = '';
  pty.onData((text) => {
    output += text;
  });
  const ended = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  // The first prompt, so what follows is this command's own output.
  await new Promise<void>((resolve) => {
    const ready = pty.onData((text) => {
      if (text.includes('$ ')) {
        ready.dispose();
        resolve();
      }
    });
  });
  output = '';
  pty.write(`${command}\n`);
  // The stall: no turn of the loop until bash is gone, so its output can only be in the master.
  const deadline = Date.now() + 20_000;
  while (!exited(pty.pid) && Date.now() < deadline) {
    // Busy on purpose: this is the stalled event loop.
  }
  (pty as unknown as { _socket: { destroy(): void } })._socket.destroy();
  const exitCode = await ended;
  return { output, exitCode };
}

test('the shell\'s last output, still in the master when the stream is destroyed, is read first', async () => {
  const { output, exitCode } = await lastOutput("printf 'last-words\\n'; exit 137", true);
  expect(exitCode).toBe(137);
  expect(output.replace(/\r/g, '')).toBe("printf 'last-words\\n'; exit 137\nlast-words\nexit\n");
});

test('without it the same stall loses that output (what the guard is for)', async () => {
  const { output, exitCode } = await lastOutput("printf 'last-words\\n'; exit 3", false);
  expect(exitCode).toBe(3);
  expect(output).not.toContain('last-words');
});
