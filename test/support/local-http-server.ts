// One in-process HTTP server per suite (a file or a describe block) over a
// local host in a fresh directory: started before its tests; closed, the host
// disposed and the directory removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type HttpServeOptions, type RunningHttpServer } from '../../src/mcp/http-server.js';
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
