import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import type { ContainerEngine } from './container-engine.js';
import { hostPidOf } from './container-pid.js';
import { openFifo, type OpenFifo } from './fifo-reader.js';
import { HELD_FIFOS, HELD_NAME, HELD_NO_SCRIPT, HELD_OPENED, HELD_PID, HELD_STARTER } from './held-terminal-program.js';

const run = promisify(execFile);

/** How long the starter's exec and the first status lines may take before the terminal counts as unreachable. */
const START_WAIT_MS = 15_000;

interface HeldTerminalSpec {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  /** The session's shared directory (the container sees it at the same path). */
  readonly sharedDir: string;
  /** The terminal's exec tag (also names its directory). */
  readonly tag: string;
  /** The launcher's argv (`shellStatusLaunch`). */
  readonly argv: readonly string[];
  /** The launcher's environment, without the tag (the starter adds it to `script` only). */
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  readonly user?: string;
}

/** A terminal running in the container, as the host holds it: three FIFOs in the shared directory. */
export interface HeldTerminal {
  /** The terminal's whole output; ends once `script` (and all it left holding the FIFO) is gone. */
  readonly output: Readable;
  /** Ends once the process waiting on `script` is gone. */
  readonly statusEnded: Promise<void>;
  /** The launcher's pid inside the container. */
  readonly containerPid: number;
  /** The launcher's pid as this machine's /proc shows it (one scan); undefined when it does not (another machine's engine). */
  hostPid(): number | undefined;
  /** script's status (the launcher's; 128 + n for a signal), once reported; null when it was not (the container went). */
  exitCode(): number | null;
  write(data: string): void;
  /** Lets go of the FIFOs and removes their directory. */
  close(): void;
  /** Lets go of the FIFOs and keeps their directory: the terminal runs on for another holder (shared-shell.ts). */
  letGo(): void;
}

/** Why no held terminal started: `no-script` (the container lacks it: never try there again) or `unreachable` (try a TTY exec). */
type HeldStartFailure = 'no-script' | 'unreachable';

/**
 * Starts a held terminal (docs/containers.md#the-held-terminal): makes its
 * FIFOs in the session's shared directory, opens the host's ends, and runs
 * `HELD_STARTER` with one engine exec that ends once the terminal runs.
 * Resolves once the launcher reported its pid, or with why not. Rejects when
 * the exec itself failed (the container may have stopped).
 */
export async function startHeldTerminal(spec: HeldTerminalSpec): Promise<HeldTerminal | HeldStartFailure> {
  const dir = path.join(spec.sharedDir, `sh-${spec.tag}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  const names = { input: path.join(dir, HELD_FIFOS.input), output: path.join(dir, HELD_FIFOS.output), status: path.join(dir, HELD_FIFOS.status) };
  const removeDir = (): void => fs.rmSync(dir, { recursive: true, force: true });
  try {
    await run('mkfifo', ['-m', '600', '--', names.input, names.output, names.status]);
  } catch {
    removeDir();
    return 'unreachable';
  }
  const output = openFifo(names.output);
  const status = openFifo(names.status);
  // Read-write: never blocks or breaks for want of a reader, and what is written before `script` reads waits in the pipe.
  const input = new net.Socket({ fd: fs.openSync(names.input, fs.constants.O_RDWR | fs.constants.O_NONBLOCK), readable: false, writable: true });
  input.on('error', () => undefined);
  const letGo = (): void => {
    output.close();
    status.close();
    input.destroy();
  };
  const close = (): void => {
    letGo();
    removeDir();
  };
  const lines = statusLines(status);
  try {
    const started = await starterStatus(spec, dir);
    if (started !== 0 && started !== null) {
      close();
      return started === HELD_NO_SCRIPT ? 'no-script' : 'unreachable';
    }
    // null: the exec did not end in time (it may have started the terminal all the same).
    const [opened, pid] = started === 0 ? [await lines.next(), await lines.next()] : [];
    // No pid (script's status instead, or nothing in time): this container's `script` cannot hold the terminal.
    if (opened !== HELD_OPENED || pid === undefined || !new RegExp(`^${HELD_PID}\\d+$`).test(pid)) {
      close();
      // Whatever did start goes before the caller reuses the tag for a TTY exec.
      await spec.engine.killTagged(spec.containerId, spec.tag, 'KILL').catch(() => 0);
      return 'unreachable';
    }
    // The container holds both now: each ends when its holder there is gone.
    output.release();
    status.release();
    const containerPid = Number(pid.slice(HELD_PID.length));
    return {
      output: output.stream,
      statusEnded: status.ended,
      containerPid,
      // script's command names the terminal's directory: no other container's launcher has that parent.
      hostPid: () => hostPidOf(containerPid, `${dir}/`),
      exitCode: () => {
        const code = lines.rest().trim();
        return /^\d+$/.test(code) ? Number(code) : null;
      },
      write: (data) => void input.write(data),
      close,
      letGo,
    };
  } catch (error) {
    close();
    throw error;
  }
}

/** The starter's exit status (it ends at once, having started the terminal or said why not). */
async function starterStatus(spec: HeldTerminalSpec, dir: string): Promise<number | null> {
  const exec = await spec.engine.exec(spec.containerId, {
    argv: ['bash', '-c', HELD_STARTER, HELD_NAME, dir, spec.tag, String(spec.cols), String(spec.rows), ...spec.argv],
    env: spec.env,
    workdir: '/',
    tty: false,
    stdin: false,
    ...(spec.user === undefined ? {} : { user: spec.user }),
  });
  exec.stdout.resume();
  exec.stderr.resume();
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([exec.exited, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), START_WAIT_MS)))]);
  clearTimeout(timer);
  if (exit === undefined) exec.detach();
  return exit?.exitCode ?? null;
}

/** The status FIFO line by line: `next` waits for the next line (undefined once it ended or `START_WAIT_MS` passed); `rest` is what came after the lines taken. */
function statusLines(status: OpenFifo): { next(): Promise<string | undefined>; rest(): string } {
  let text = '';
  let wake: (() => void) | undefined;
  status.stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    wake?.();
  });
  let ended = false;
  void status.ended.then(() => {
    ended = true;
    wake?.();
  });
  return {
    async next() {
      const deadline = Date.now() + START_WAIT_MS;
      for (;;) {
        const newline = text.indexOf('\n');
        if (newline >= 0) {
          const line = text.slice(0, newline);
          text = text.slice(newline + 1);
          return line;
        }
        const left = deadline - Date.now();
        if (ended || left <= 0) return undefined;
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
        wake = undefined;
      }
    },
    rest: () => text,
  };
}
