// In-process HTTP servers over local hosts in a fresh directory: one per
// suite (a file or a describe block), started before its tests; or one per
// test, each on its own host, its session ends emitted as `closed` events.
// After the suite the hosts are disposed and the directory removed.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type HttpServeOptions, type RunningHttpServer } from '../../src/mcp/http-server.js';
import type { PluginModule } from '../../src/core/plugin-module.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';

export interface SuiteLocalServer {
  readonly dir: string;
  readonly host: DshHost;
  readonly server: RunningHttpServer;
}

/** `options` gets the suite's directory (to write a token file there first); workspace and port are the kit's. */
export function localHttpServerForSuite(
  prefix: string,
  options: (dir: string) => Omit<HttpServeOptions, 'workspace' | 'port'>,
): SuiteLocalServer {
  let dir: string | undefined;
  let host: DshHost | undefined;
  let server: RunningHttpServer | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    host = await createHost(...localEnvironment({ workspace: dir }));
    server = await serveHttp(host, { workspace: dir, port: 0, ...options(dir) });
  });
  afterAll(async () => {
    await server?.close();
    await host?.dispose();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the suite server is used before its beforeAll ran');
    return value;
  };
  return {
    get dir() {
      return started(dir);
    },
    get host() {
      return started(host);
    },
    get server() {
      return started(server);
    },
  };
}

export interface TestServer {
  readonly host: DshHost;
  readonly server: RunningHttpServer;
  readonly url: URL;
  /** Emits `closed` (id, reason) for each session the server ends. */
  readonly ends: EventEmitter;
}

export interface TestServers {
  readonly dir: string;
  /** A server (no token) over a new local host of the suite's directory; the test closes the server, the kit disposes the host. */
  serve(options?: Partial<HttpServeOptions>, host?: { env?: Parameters<typeof localEnvironment>[0]; modules?: readonly PluginModule[] }): Promise<TestServer>;
}

export function localHttpServers(prefix: string): TestServers {
  let dir: string | undefined;
  const hosts: DshHost[] = [];
  beforeAll(() => void (dir = mkdtempSync(path.join(os.tmpdir(), prefix))));
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.dispose()));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const made = (): string => {
    if (dir === undefined) throw new Error('the suite directory is used before its beforeAll ran');
    return dir;
  };
  return {
    get dir() {
      return made();
    },
    async serve(options = {}, given = {}) {
      const workspace = made();
      const host = await createHost(...localEnvironment({ ...given.env, workspace }), ...(given.modules ?? []));
      hosts.push(host);
      const ends = new EventEmitter();
      const server = await serveHttp(host, { workspace, port: 0, auth: 'none', ...options, onSessionClosed: (id, reason) => ends.emit('closed', id, reason) });
      return { host, server, url: new URL(server.url), ends };
    },
  };
}
