// nginx in front of several replicas with no affinity, as an operator runs
// it: plain round-robin, event streams unbuffered, a replica that refuses
// connections skipped for the next (nginx does so only before a request was
// sent, so no call is ever replayed).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where Debian puts it; CI installs it (.ci/run), a developer's machine may lack it. */
export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => existsSync(file));

/** Why a suite behind nginx is skipped ('' when it runs); CI installs nginx and sets DSH_CI_NGINX, so there it always runs. */
export const NEEDS_NGINX = NGINX === undefined && process.env.DSH_CI_NGINX !== '1' ? ' (skipped: needs nginx — apt-get install -y nginx-light)' : '';

/** `describe` when nginx can run (and `gate` — the engine's or the cluster's describe — would run the suite), else `describe.skip`. */
export function describeBehindNginx(gate: jest.Describe): jest.Describe {
  return NEEDS_NGINX === '' ? gate : describe.skip;
}

/** The Host the replicas see (each is started with `--allowed-host` of it). */
export const UPSTREAM_HOST = 'replicas';

export interface RoundRobinProxy {
  readonly url: URL;
  stop(): Promise<void>;
}

/** Starts nginx on a free port of 127.0.0.1 balancing over `ports` (replicas on 127.0.0.1). */
export async function startRoundRobinNginx(listenPort: number, ports: readonly number[]): Promise<RoundRobinProxy> {
  if (NGINX === undefined) throw new Error('nginx is not installed (apt-get install -y nginx-light)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-nginx-'));
  for (const sub of ['tmp', 'logs']) mkdirSync(path.join(dir, sub));
  const servers = ports.map((port) => `    server 127.0.0.1:${port} max_fails=0;`).join('\n');
  const conf = `
daemon off;
master_process off;
worker_processes 1;
error_log ${dir}/logs/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 256; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream ${UPSTREAM_HOST} {
${servers}
  }
  server {
    listen 127.0.0.1:${listenPort};
    location / {
      proxy_pass http://${UPSTREAM_HOST};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream error timeout;
    }
  }
}
`;
  const file = path.join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const child: ChildProcess = spawn(NGINX, ['-c', file, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForListen(listenPort, exited, () => stderr);
  return {
    url: new URL(`http://127.0.0.1:${listenPort}/mcp`),
    stop: async () => {
      child.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once something accepts on the port; rejects if nginx exited first. */
async function waitForListen(port: number, exited: Promise<void>, stderr: () => string): Promise<void> {
  const { connect } = await import('node:net');
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`nginx exited before listening: ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
