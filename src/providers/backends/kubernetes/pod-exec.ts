import { PassThrough } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { ExecChannel, ExecExit, ExecOptions } from '../../exec/engine/container-engine.js';
import { CONTAINER_NAME } from './pod-manifest.js';

/** The channels of the exec stream protocol (`v4.channel.k8s.io`). */
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;

/** The subset of a `ws` WebSocket the channel uses. */
interface Socket {
  readonly readyState: number;
  send(data: Buffer): void;
  close(): void;
  terminate(): void;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Opens a WebSocket to an API path; `onFrame` receives each frame's channel and payload. */
export type Connect = (path: string, onFrame: (channel: number, data: Buffer) => void) => Promise<Socket>;

/** The exit code the exec's Status reports: 0 on Success, `ExitCode` cause on NonZeroExitCode, else unknown. */
function exitCodeOf(status: V1Status | undefined): number | null {
  if (status === undefined) return null;
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  return cause !== undefined && Number.isSafeInteger(code) ? code : null;
}

/**
 * The exec's argv: the API has no environment or working directory of its
 * own, so `env` sets the variables (and a `cd` runs first when a workdir
 * other than the pod's `/` is asked for).
 */
function execArgv(options: ExecOptions): string[] {
  const assignments = Object.entries(options.env).map(([name, value]) => `${name}=${value}`);
  const argv = assignments.length === 0 ? [...options.argv] : ['env', '--', ...assignments, ...options.argv];
  if (options.workdir === '/' || options.workdir === '') return argv;
  return ['/bin/sh', '-c', 'cd -- "$0" && exec "$@"', options.workdir, ...argv];
}

/** The API path of an exec in the session container. */
export function execPath(namespace: string, pod: string, options: ExecOptions): string {
  const query = new URLSearchParams();
  for (const arg of execArgv(options)) query.append('command', arg);
  query.set('container', CONTAINER_NAME);
  query.set('stdin', String(options.stdin));
  query.set('stdout', 'true');
  query.set('stderr', String(!options.tty));
  query.set('tty', String(options.tty));
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/exec?${query}`;
}

/** A running exec over its WebSocket, as the container layer's `ExecChannel`. */
export async function openExec(connect: Connect, path: string, options: ExecOptions, hostPid: () => Promise<number | undefined>): Promise<ExecChannel> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let status: V1Status | undefined;
  const socket = await connect(path, (channel, data) => {
    if (channel === STDOUT) stdout.write(data);
    else if (channel === STDERR) stderr.write(data);
    else if (channel === STATUS && data.length > 0) {
      try {
        status = JSON.parse(data.toString('utf8')) as V1Status;
      } catch {
        status = undefined;
      }
    }
  });
  if (options.tty) stderr.end();
  const exited = new Promise<ExecExit>((resolve) => {
    const finish = (): void => {
      stdout.end();
      stderr.end();
      resolve({ exitCode: exitCodeOf(status) });
    };
    socket.on('close', finish);
    // An error after the upgrade is followed by close; the listener keeps it from being thrown.
    socket.on('error', () => undefined);
  });
  const send = (channel: number, data: Buffer): void => {
    if (socket.readyState === 1) socket.send(Buffer.concat([Buffer.from([channel]), data]));
  };
  const resize = async (cols: number, rows: number): Promise<void> => {
    if (options.tty) send(RESIZE, Buffer.from(JSON.stringify({ Width: cols, Height: rows })));
  };
  if (options.tty && options.cols && options.rows) await resize(options.cols, options.rows);
  return {
    stdout,
    stderr,
    exited,
    write: (data) => send(STDIN, Buffer.from(data, 'utf8')),
    resize,
    hostPid,
    detach: () => socket.terminate(),
  };
}
