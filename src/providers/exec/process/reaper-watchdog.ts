import { spawn, type ChildProcess } from 'node:child_process';
import { INSTANCE_ID, PROCESS_TAG_VARIABLE } from './leftover-reaper.js';

/** How long after its start the watchdog may trust pid order (microseconds; as FULL_SCAN_AFTER_MS in leftover-reaper.ts). */
const WINDOW_US = 1_000_000;

/**
 * A server killed with SIGKILL runs no cleanup, so a tiny bash process is
 * started with the first command: it blocks reading a pipe whose only writer
 * is this server, and when the pipe ends (the server is gone, however it
 * died) it kills every process carrying this server's tag prefix. It runs in
 * its own session so a signal to the server's process group spares it, and
 * holds none of the server's stdio open. `--norc`: its stdin is a socket, and
 * bash started with one at shell level 1 takes itself for an ssh login and
 * runs ~/.bashrc first (which may hang, or kill nothing ever).
 *
 * Every carrier of the tag started after the watchdog (it is started before
 * the first command), and pids are handed out in order: stopped within a
 * second of its start with the newest pid not below its own (no wrap), it
 * reads the environment of the pids above its own only (the rule of
 * reap-batch.ts), which spares a one-shot `dsh-tools call` reading every
 * process's environment; later, without bash 5's `EPOCHREALTIME`, or when
 * an earlier start failed in this process (commands may have run before it),
 * it reads them all.
 */
const WATCHDOG_SCRIPT = `
started=\${EPOCHREALTIME//[!0-9]/}
read -r _
needle="${PROCESS_TAG_VARIABLE}=$1."
since=0
if [ "$2" = ordered ] && [ -n "$started" ] && (( \${EPOCHREALTIME//[!0-9]/} - started < ${WINDOW_US} )); then
  read -r _ _ _ _ newest </proc/loadavg
  [[ $newest =~ ^[0-9]+$ ]] && (( newest >= $$ )) && since=$$
fi 2>/dev/null
for pass in 1 2 3 4 5 6 7 8; do
  found=0
  for dir in /proc/[0-9]*; do
    pid=\${dir#/proc/}
    (( pid > since )) && [ "$pid" != "$$" ] || continue
    while IFS= read -r -d '' entry; do
      if [[ $entry == "$needle"* ]]; then kill -9 "$pid" && found=1; break; fi
    done 2>/dev/null <"$dir/environ"
  done
  [ "$found" = 0 ] && break
done
`;

interface Watchdog {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

let running: Watchdog | undefined;
let holds = 0;
/** A start failed: commands may have run before the next watchdog, so its carriers' pids may be below its own. */
let startFailed = false;

/** Starts this process's watchdog once (again after a `release`); later calls do nothing. Never throws. */
export function ensureReaperWatchdog(shellPath: string): void {
  if (running) return;
  try {
    const env = { ...process.env };
    delete env[PROCESS_TAG_VARIABLE];
    delete env.BASH_ENV;
    delete env.ENV;
    const child = spawn(shellPath, ['--norc', '--noprofile', '-c', WATCHDOG_SCRIPT, 'dsh-reaper-watchdog', INSTANCE_ID, startFailed ? 'unordered' : 'ordered'], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env,
    });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => {
        startFailed = true;
        resolve();
      });
    });
    child.stdin?.on('error', () => undefined);
    // Neither the child nor our end of its pipe may keep this server alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    running = { child, exited };
  } catch {
    startFailed = true;
    // Best effort: without it, a SIGKILLed server leaves its commands' strays.
  }
}

/** The running watchdog's pid (undefined when none runs): for tests and diagnostics. */
export function reaperWatchdogPid(): number | undefined {
  return running?.child.pid;
}

/**
 * Marks a host alive in this process; the returned release, called at its
 * disposal, stops the watchdog when no host holds it any more: its pipe is
 * closed (so it reaps what still carries this process's tag, as after a
 * SIGKILL) and the release resolves once it has exited. A later command
 * starts a new one. Idempotent.
 */
export function holdReaperWatchdog(): () => Promise<void> {
  holds += 1;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    holds -= 1;
    if (holds > 0 || !running) return;
    const { child, exited } = running;
    running = undefined;
    // Referenced again while it stops: a disposal awaited at a script's top level must see it through.
    child.ref();
    child.stdin?.end();
    // It reads one line, then scans /proc: a stuck scan must not stall a disposal.
    const stuck = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
    stuck.unref();
    await exited;
    clearTimeout(stuck);
  };
}

const STOP_WAIT_MS = 5000;
