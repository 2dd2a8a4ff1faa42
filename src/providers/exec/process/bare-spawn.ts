import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, type Writable } from 'node:stream';

/**
 * A one-shot command's spawn straight through node's `child_process.spawn`:
 * execa's option normalisation, stream plumbing and result promise cost
 * about as much CPU per call as the fork itself on a busy machine, and a
 * command of the executor used none of them (`BARE_SPAWN` turned them off).
 * What is kept: a new session and process group (`detached`), exactly the
 * given env, data for stdin or an extra descriptor written to its pipe, and a
 * thenable that resolves with the spawn error (`code`, `originalMessage`)
 * when the process could not be started (the shape `describeSpawnFailure` reads).
 */
export interface BareChild {
  readonly pid: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdio: ReadonlyArray<Readable | Writable | null | undefined>;
  /** Null until the process exited (or for ever, when it never started). */
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  /** Whether the process (not its pipes) keeps the event loop alive. */
  ref(): void;
  unref(): void;
  /** Settles once: with the spawn error when it failed, else with undefined when the process has exited. */
  then<T>(onSettled: (failure: SpawnFailure | undefined) => T, onRejected?: (error: unknown) => T): Promise<T>;
}

/** Why a process could not be started. */
export interface SpawnFailure {
  readonly code: string | undefined;
  readonly originalMessage: string;
  readonly message: string;
}

/** One stdio entry: node's own, or bytes the process reads from a pipe at that descriptor. */
export type BareStdio = 'ignore' | 'pipe' | number | Uint8Array;

interface BareSpawnOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdio: readonly BareStdio[];
  /** Written to stdin (which must be 'pipe'), then closed. */
  readonly input?: string;
}

export function bareSpawn(file: string, args: readonly string[], options: BareSpawnOptions): BareChild {
  const data = new Map<number, Uint8Array | string>();
  const stdio = options.stdio.map((entry, fd) => {
    if (typeof entry !== 'object') return entry;
    data.set(fd, entry);
    return 'pipe' as const;
  });
  if (options.input !== undefined) data.set(0, options.input);
  let child: ChildProcess;
  try {
    child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio, detached: true });
  } catch (error) {
    // Node throws for the errors it does not emit (E2BIG, …): reported the same way as the emitted ones.
    return failedChild(error as NodeJS.ErrnoException);
  }
  const settled = new Promise<SpawnFailure | undefined>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code, originalMessage: error.message, message: error.message }));
    child.once('exit', () => resolve(undefined));
  });
  for (const [fd, bytes] of data) {
    const pipe = child.stdio[fd] as Writable | null;
    if (pipe === null) continue;
    // The command may exit without reading it all: a closed pipe is its choice, not an error of ours.
    pipe.on('error', noop);
    pipe.end(bytes);
  }
  return {
    pid: child.pid,
    stdout: child.stdout ?? Readable.from([]),
    stderr: child.stderr ?? Readable.from([]),
    stdio: child.stdio,
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    once: (event, listener) => child.once(event, listener),
    ref: () => child.ref(),
    unref: () => child.unref(),
    then: (onSettled, onRejected) => settled.then(onSettled, onRejected),
  };
}

function failedChild(error: NodeJS.ErrnoException): BareChild {
  const failure: SpawnFailure = { code: error.code, originalMessage: error.message, message: error.message };
  const settled = Promise.resolve(failure);
  return {
    pid: undefined,
    stdout: Readable.from([]),
    stderr: Readable.from([]),
    stdio: [null, null, null],
    exitCode: null,
    signalCode: null,
    once: () => undefined,
    ref: noop,
    unref: noop,
    then: (onSettled, onRejected) => settled.then(onSettled, onRejected),
  };
}

function noop(): void {}
