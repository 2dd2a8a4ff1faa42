// The Inspector CLI 2.x (Node 22): one CLI process per request (--cli --format json),
// so each call is a fresh connection (stdio: a fresh server). Era "modern" passes
// --protocol-era modern; "legacy" is the CLI's default for ad-hoc targets.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { joinText, readConfig, runScript } from './script.mjs';

const require = createRequire(import.meta.url);
// The CLI `mcp-inspector --cli` forwards to, run directly: one process less per request on a busy machine.
const CLI = path.join(path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'clients/cli/build/index.js');

/** Runs the CLI; resolves with its exit code, parsed stdout (JSON) and stderr. */
function inspector(config, args, signal) {
  const target =
    config.transport === 'stdio'
      ? [...Object.entries(config.server.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]), '--', config.server.command, ...config.server.args]
      : // The token is static: --stored-auth-only (the CLI's advice for non-interactive runs) reports a 401 instead of starting OAuth.
        ['--transport', 'http', '--server-url', config.url, '--header', `Authorization: Bearer ${config.token}`, '--stored-auth-only'];
  const era = config.era === 'modern' ? ['--protocol-era', 'modern'] : [];
  // Its 15 s default is short for a stdio server starting beside the other runs on two cores.
  const patience = ['--connect-timeout', '60000'];
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, '--format', 'json', ...patience, ...era, ...args, ...target], { signal, maxBuffer: 64 << 20, timeout: 120_000 }, (error, stdout, stderr) => {
      let json = null;
      try {
        json = JSON.parse(stdout || stderr.trim().split('\n').pop() || 'null');
      } catch {
        // not JSON: stderr carries the reason
      }
      resolve({ code: error ? (error.code ?? 1) : 0, json, stderr });
    });
  });
}

function failure(run) {
  const message = run.json?.error?.message ?? run.stderr.trim().split('\n').pop() ?? `exit ${run.code}`;
  return Object.assign(new Error(message), { code: run.code });
}

async function makeClient(config) {
  let tools = [];
  return {
    // stdio: each request has a server of its own, so they run side by side; over HTTP
    // six CLIs at once on a loaded machine saw "fetch failed", so one at a time.
    independentCases: config.transport === 'stdio',
    // No session to open: the first request (tools/list) is the connection check, and the list.
    async connect() {
      const run = await inspector(config, ['--method', 'tools/list']);
      if (!run.json?.result) throw failure(run);
      tools = run.json.result.tools;
      return {};
    },
    async listTools() {
      return tools;
    },
    async call(name, args) {
      const run = await inspector(config, ['--method', 'tools/call', '--tool-name', name, '--tool-args-json', JSON.stringify(args)]);
      // isError results exit 5 with the result still on stdout.
      const result = run.json?.result;
      if (!result) throw failure(run);
      return { text: joinText(result.content), structured: result.structuredContent ?? null, isError: result.isError ?? false, exitCode: run.code };
    },
    /** tools/list --strict: the schema portability report (stderr) and exit code (6 on an error-severity problem). */
    async strict() {
      const run = await inspector(config, ['--method', 'tools/list', '--strict']);
      const warnings = run.stderr.split('\n').filter((line) => /^(Warning|Error): tool /.test(line));
      return { exitCode: run.code, warnings };
    },
    close: async () => undefined,
  };
}

await runScript(makeClient, readConfig());
