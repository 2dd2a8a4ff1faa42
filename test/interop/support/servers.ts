// The servers a client file runs against: one HTTP server per file (shared
// by its runs), one for the idle-expiry run, and the stdio command line each
// client spawns itself. All use the same approval rule and a short heartbeat.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAIN_JS } from '../../support/built-server.js';
import { serverDirs, startHttpServer, type HttpServer } from '../../support/mcp-clients.js';

/** `echo approve-me` asks the client (elicitation) before it runs. */
const CONFIG_YAML = [
  'logLevel: info',
  'approval:',
  '  rules:',
  '    - { match: echo approve-me, action: ask, name: interop approval }',
  '',
].join('\n');


export interface InteropServers {
  stdio: { command: string; args: string[]; env: Record<string, string> };
  http: HttpServer;
  expiring: HttpServer;
  stop(): Promise<void>;
}

export async function startServers(): Promise<InteropServers> {
  const { root, workspace, dshHome, cleanup } = serverDirs();
  const config = path.join(root, 'interop.yaml');
  writeFileSync(config, CONFIG_YAML);
  const common = { workspace, dshHome };
  // A short drain: a call a client dropped without cancelling ends soon after the client goes.
  // A short heartbeat, so the quiet case takes seconds: 1 s against a 3 s client timeout and a 4 s command.
  const args = ['--config', config, '--drain-timeout', '2', '--heartbeat-interval', '1'];
  const http = await startHttpServer({ ...common, args: [...args, '--idle-timeout', '600'] });
  const expiring = await startHttpServer({ ...common, args: [...args, '--idle-timeout', '5'] });
  return {
    stdio: {
      command: process.execPath,
      args: [MAIN_JS, 'serve', '--workspace', workspace, ...args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, DSH_HOME: dshHome },
    },
    http,
    expiring,
    async stop() {
      for (const server of [http, expiring]) if (server.process.exitCode === null) server.process.kill('SIGTERM');
      await Promise.all([http.exited, expiring.exited]);
      cleanup();
    },
  };
}
