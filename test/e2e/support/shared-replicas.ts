// `serve --http --shared-sessions` replicas as host processes, for the shared
// sessions suites: started on a port of their own, their stderr kept (it says
// what they adopted and ended), stopped by the test with a signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { MAIN_JS } from '../../support/built-server.js';
import { serverDirs } from '../../support/mcp-clients.js';
import { request } from '../../support/raw-legacy.js';

/** A suite's own directories: its workspace, its token file, and the environment its replicas run in. */
export interface ReplicaDirs {
  readonly root: string;
  readonly workspace: string;
  readonly tokenFile: string;
  /** The replicas' TMPDIR: their records and session directories, apart from any other server's. */
  readonly tmp: string;
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Makes a suite's directories, with `tokens` (the token file's content) written 0600. */
export function replicaDirs(tokens: string): ReplicaDirs {
  const dirs = serverDirs();
  const tmp = path.join(dirs.root, 'tmp');
  mkdirSync(tmp);
  const tokenFile = path.join(dirs.root, 'tokens');
  writeFileSync(tokenFile, tokens, { mode: 0o600 });
  const env = { ...process.env, DSH_HOME: path.join(dirs.root, 'home'), TMPDIR: tmp };
  return { root: dirs.root, workspace: dirs.workspace, tokenFile, tmp, env, cleanup: dirs.cleanup };
}

export interface Replica {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr(): string;
}

/** A port nothing listens on now (the replica binds it a moment later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `dsh-tools serve --http <port> …args`; resolves once it listens, rejects if it exits first. */
export async function startReplica(port: number, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Replica> {
  const child = spawn(process.execPath, [MAIN_JS, 'serve', '--http', String(port), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  // 'close', not 'exit': by then everything it wrote to stderr has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('listening on')) resolve();
    });
    void exited.then((code) => reject(new Error(`replica exited (${code}) before listening:\n${stderr}`)));
  });
  return { child, exited, stderr: () => stderr };
}

/** SIGTERMs the replicas still running and waits for every one to exit. */
export async function stopReplicas(replicas: ReadonlyArray<Replica | undefined>): Promise<void> {
  for (const replica of replicas) if (replica !== undefined && replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGTERM');
  await Promise.all(replicas.map((replica) => replica?.exited));
}

/** The HTTP status another caller's valid token gets for `tools/list` on someone else's session id. */
export async function foreignStatus(url: URL, token: string, sessionHeader: string): Promise<number> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionHeader },
    body: JSON.stringify(request(99, 'tools/list')),
  });
  await answer.body?.cancel();
  return answer.status;
}
