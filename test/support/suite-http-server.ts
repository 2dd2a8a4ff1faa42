// One built HTTP server per suite (a file or a describe block): started
// before its tests, stopped and its directories removed after them.
import { serverDirs, startHttpServer, type HttpServer } from './mcp-clients.js';

type ServerDirs = ReturnType<typeof serverDirs>;

export interface SuiteServerOptions {
  /** The bearer token, given to the server as DSH_HTTP_TOKEN unless `tokenFile` names the callers; absent: the server makes one. */
  readonly token?: string;
  /** The server's arguments; a function gets the suite's directories (to write a config file there first). */
  readonly args?: readonly string[] | ((dirs: ServerDirs) => readonly string[]);
  /** Writes a token file into the suite's directories and returns its path (the server gets `--token-file`). */
  readonly tokenFile?: (dirs: ServerDirs) => string;
}

export interface SuiteServer {
  readonly server: HttpServer;
  readonly dirs: ServerDirs;
}

export function httpServerForSuite(options: SuiteServerOptions = {}): SuiteServer {
  let state: SuiteServer | undefined;
  beforeAll(async () => {
    const dirs = serverDirs();
    const tokenFile = options.tokenFile?.(dirs);
    const args = typeof options.args === 'function' ? options.args(dirs) : (options.args ?? []);
    const given = options.token;
    const server = await startHttpServer({
      workspace: dirs.workspace,
      dshHome: dirs.dshHome,
      args: [...(tokenFile ? ['--token-file', tokenFile] : []), ...args],
      env: tokenFile || given === undefined ? {} : { DSH_HTTP_TOKEN: given },
      ...(given === undefined ? {} : { token: given }),
    });
    state = { server, dirs };
    // Long enough for `ensureBuilt` to build a stale dist/ first.
  }, 180_000);
  afterAll(async () => {
    if (!state) return;
    state.server.process.kill('SIGTERM');
    await state.server.exited;
    state.dirs.cleanup();
  });
  const started = (): SuiteServer => {
    if (!state) throw new Error('the suite server is used before its beforeAll ran');
    return state;
  };
  return {
    get server() {
      return started().server;
    },
    get dirs() {
      return started().dirs;
    },
  };
}
