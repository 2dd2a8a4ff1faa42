import fs from 'node:fs';

/** O_CLOEXEC in /proc/<pid>/fdinfo/<fd> `flags:` (octal). */
const O_CLOEXEC = 0o2000000;

/** Reused by every fdinfo read (one at a time; `flags:` is on the file's second line, well within it). */
const fdinfoBuffer = Buffer.alloc(512);

/** `/proc/self/fdinfo/<fd>`'s start, with one buffer for all (a scan per CLI start and per spawn). */
function readFdinfo(fd: number): string | undefined {
  let file: number;
  try {
    file = fs.openSync(`/proc/self/fdinfo/${fd}`, 'r');
  } catch {
    return undefined;
  }
  try {
    return fdinfoBuffer.toString('latin1', 0, fs.readSync(file, fdinfoBuffer, 0, fdinfoBuffer.length, 0));
  } catch {
    return undefined;
  } finally {
    fs.closeSync(file);
  }
}

/**
 * The descriptors above 2 that this process would pass on to every child:
 * those without close-on-exec. Node and libuv open all of theirs with it, so
 * these were inherited from whoever started the process (`exec 300>>file`
 * before `node`, a supervisor's socket, a test runner's channel), and node's
 * spawn and node-pty hand them on as they are. Empty when /proc is unreadable.
 */
function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const info = readFdinfo(fd);
    // Undefined: the directory's own descriptor, closed by now.
    if (info === undefined) continue;
    const flags = /^flags:\s*([0-7]+)/m.exec(info);
    if (flags !== null && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/**
 * For a process of our own (the CLI): closes every inheritable descriptor
 * above 2 at start, so no child can get one, whatever spawns it. Node's IPC
 * channel (a parent's `fork`) stays, and so do descriptors the command line
 * names (`--config <(…)` is `/dev/fd/63`): those reach no command either,
 * through `withoutStrayDescriptors`. Returns the closed ones.
 */
export function closeInheritedDescriptors(args: readonly string[] = process.argv): number[] {
  const kept = new Set([Number(process.env.NODE_CHANNEL_FD), ...descriptorsNamedIn(args)]);
  const closed: number[] = [];
  for (const fd of inheritableDescriptors()) {
    if (kept.has(fd)) continue;
    try {
      fs.closeSync(fd);
      closed.push(fd);
    } catch {
      // Gone already.
    }
  }
  return closed;
}

/** Descriptors an argument names as a path (`/dev/fd/N`, `/proc/self/fd/N`, also inside `--opt=…`). */
function descriptorsNamedIn(args: readonly string[]): number[] {
  const named: number[] = [];
  for (const arg of args) for (const match of arg.matchAll(/\/(?:dev|proc\/self)\/fd\/(\d+)/g)) named.push(Number(match[1]));
  return named;
}

/**
 * Closes every descriptor above 2 except the listed ones (`$1`), then execs
 * the rest of the argv. bash, because dash cannot name a descriptor above 9.
 * `-h`: the glob's own directory descriptor is gone by the time it is looked at.
 */
const CLOSE_AND_EXEC =
  'k=" $1 "; shift; for f in /proc/self/fd/*; do f=${f##*/}; ' +
  'if ((f > 2)) && [[ $k != *" $f "* && -h /proc/self/fd/$f ]]; then exec {f}>&-; fi; done; unset -v k f; exec -- "$@"';

/** `$0` of the closing shell while it runs (it shows in the process table for a moment). */
const CLOSER_NAME = 'dsh-close-fds';

let strayCache: readonly number[] | undefined;

/**
 * The inheritable descriptors this process holds: looked at once, at the
 * first spawn (the ones that matter were inherited at start; the CLI closes
 * its own before). A host that makes descriptors inheritable later is not
 * covered (see docs/security/channels.md).
 */
export function strayDescriptors(): readonly number[] {
  strayCache ??= inheritableDescriptors();
  return strayCache;
}

/** Test hook: forget the cached answer (a suite that opens or closes descriptors on purpose). */
export function forgetStrayDescriptors(): void {
  strayCache = undefined;
}

/**
 * `argv` unchanged when this process has no inheritable descriptors (the
 * CLI, most embedders: no cost), else run through a shell that closes every
 * descriptor above 2 but `keep` before it execs `argv` in place (same pid
 * and process group): an embedding host's descriptors never reach bwrap,
 * the sandbox or a command, and its own process keeps them.
 */
export function withoutStrayDescriptors(argv: readonly string[], shellPath: string, keep: readonly number[] = []): string[] {
  return strayDescriptors().length > 0 ? closingArgv(argv, shellPath, keep) : [...argv];
}

/**
 * `argv` run by the closing shell, always (see `withoutStrayDescriptors`).
 * `--norc`: with a socket as stdin bash would take itself for an ssh login
 * and source ~/.bashrc before the command's own shell does it again.
 */
export function closingArgv(argv: readonly string[], shellPath: string, keep: readonly number[] = []): string[] {
  return [shellPath, '--norc', '--noprofile', '-c', CLOSE_AND_EXEC, CLOSER_NAME, keep.join(' '), ...argv];
}
