/**
 * node-pty keeps the event loop alive for as long as a PTY's shell lives
 * (its exit callback is a native handle JavaScript cannot unreference), so
 * a persistent shell nobody disposed would hold a test runner or a script
 * until its idle close, minutes later. The local PTY shells are watched here:
 * when nothing else keeps the process alive (no referenced handle, timer or
 * request) and no send is in flight, they are closed with a warning that
 * says so, and the process can exit (docs/embedding.md, "Tests").
 */

interface WatchedShell {
  /** What the warning calls it: `bash (pid 123)`. */
  readonly label: string;
  /** A send is in flight: someone awaits the shell. */
  readonly busy: () => boolean;
  close(): Promise<void>;
}

// Two idle checks in a row close the shells: within jest's one second before it says it "did not exit".
const CHECK_MS = 250;
const shells = new Set<WatchedShell>();
let timer: NodeJS.Timeout | undefined;
let idleChecks = 0;

/** Watches `shell` until the returned function is called (its exit). */
export function watchForgotten(shell: WatchedShell): () => void {
  shells.add(shell);
  if (timer === undefined) {
    // Unreferenced: it runs only while something else (a PTY) keeps the loop alive.
    timer = setInterval(checkForgotten, CHECK_MS);
    timer.unref();
  }
  return () => {
    shells.delete(shell);
    if (shells.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };
}

function checkForgotten(): void {
  if ([...shells].some((shell) => shell.busy()) || somethingElseHoldsTheProcess()) {
    idleChecks = 0;
    return;
  }
  // Twice in a row: a state seen once may be a gap between two steps of the program.
  if (++idleChecks < 2) return;
  idleChecks = 0;
  const forgotten = [...shells];
  for (const shell of forgotten) shells.delete(shell);
  process.emitWarning(
    `closing ${forgotten.length} persistent shell(s) nobody disposed (${forgotten.map((shell) => shell.label).join(', ')}), ` +
      'the only thing keeping this process alive; dispose the host (host.dispose()) when done with it',
    { code: 'DSH_FORGOTTEN_SHELL' },
  );
  for (const shell of forgotten) void shell.close().catch(() => undefined);
}

interface Handle {
  readonly fd?: number;
  readonly _handle?: { readonly fd?: number } | null;
  hasRef?(): boolean;
}

/** A referenced handle (stdio aside), a referenced timer or an I/O request in flight. */
function somethingElseHoldsTheProcess(): boolean {
  if (process.getActiveResourcesInfo().some((type) => type === 'Timeout' || type === 'Immediate')) return true;
  const internals = process as unknown as { _getActiveRequests?: () => unknown[]; _getActiveHandles?: () => Handle[] };
  if ((internals._getActiveRequests?.() ?? []).length > 0) return true;
  return (internals._getActiveHandles?.() ?? []).some((handle) => !isStdio(handle) && (typeof handle.hasRef !== 'function' || handle.hasRef()));
}

/** The process's own stdin, stdout or stderr (which never keep it alive by themselves). */
function isStdio(handle: Handle): boolean {
  const fd = handle.fd ?? handle._handle?.fd;
  return fd === 0 || fd === 1 || fd === 2;
}
