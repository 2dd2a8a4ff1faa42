// One built HTTP server per suite (a file or a describe block): started
// before its tests, stopped and its directories removed after them.
import { serverDirs, startHttpServer, type HttpServer } from './mcp-clients.js';

type ServerDirs = ReturnType<typeof serverDirs>;

export interface SuiteServerOptions {
  /** The bearer token, given to the server as DSH_HTTP_TOKEN unless `tokenFile` names the callers. */
  readonly token: string;
  readonly args?: readonly string[];
  /** Writes a token file into the suite's directories and returns its path (the server gets `--token-file`). */
  readonly tokenFile?: (dirs: ServerDirs) => string;
}

export interface SuiteServer {
  readonly server: HttpServer;
  readonly dirs: ServerDirs;
}

export function httpServerForSuite(options: SuiteServerOptions): SuiteServer {
  let state: SuiteServer | undefined;
  beforeAll(async () => {
    const dirs = serverDirs();
    const tokenFile = options.tokenFile?.(dirs);
    const server = await startHttpServer({
      workspace: dirs.workspace,
      dshHome: dirs.dshHome,
      args: [...(tokenFile ? ['--token-file', tokenFile] : []), ...(options.args ?? [])],
      env: tokenFile ? {} : { DSH_HTTP_TOKEN: options.token },
      token: options.token,
    });
    state = { server, dirs };
  });
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
