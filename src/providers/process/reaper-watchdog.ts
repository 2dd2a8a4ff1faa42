import { spawn } from 'node:child_process';
import { INSTANCE_ID, PROCESS_TAG_VARIABLE } from './leftover-reaper.js';

/**
 * A server killed with SIGKILL runs no cleanup, so a tiny bash process is
 * started with the first command: it blocks reading a pipe whose only writer
 * is this server, and when the pipe ends (the server is gone, however it
 * died) it kills every process carrying this server's tag prefix. It runs in
 * its own session so a signal to the server's process group spares it, and
 * holds none of the server's stdio open. `--norc`: its stdin is a socket, and
 * bash started with one at shell level 1 takes itself for an ssh login and
 * runs ~/.bashrc first (which may hang, or kill nothing ever).
 */
const WATCHDOG_SCRIPT = `
read -r _
needle="${PROCESS_TAG_VARIABLE}=$1."
for pass in 1 2 3 4 5 6 7 8; do
  found=0
  for dir in /proc/[0-9]*; do
    pid=\${dir#/proc/}
    [ "$pid" = "$$" ] && continue
    while IFS= read -r -d '' entry; do
      if [[ $entry == "$needle"* ]]; then kill -9 "$pid" && found=1; break; fi
    done 2>/dev/null <"$dir/environ"
  done
  [ "$found" = 0 ] && break
done
`;

let started = false;

/** Starts this process's watchdog once; later calls do nothing. Never throws. */
export function ensureReaperWatchdog(shellPath: string): void {
  if (started) return;
  started = true;
  try {
    const env = { ...process.env };
    delete env[PROCESS_TAG_VARIABLE];
    delete env.BASH_ENV;
    delete env.ENV;
    const child = spawn(shellPath, ['--norc', '--noprofile', '-c', WATCHDOG_SCRIPT, 'dsh-reaper-watchdog', INSTANCE_ID], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env,
    });
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    // Neither the child nor our end of its pipe may keep this server alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    // Best effort: without it, a SIGKILLed server leaves its commands' strays.
  }
}
