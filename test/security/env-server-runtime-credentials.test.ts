// Issue 33 item 5, "the server's own telemetry credentials reach the model":
// a server started with OpenTelemetry configured the usual way (NODE_OPTIONS
// `--require`s the SDK's register script, the collector's Authorization rides
// in OTEL_EXPORTER_OTLP_HEADERS) must pass none of it to a command, in the
// local and the bwrap compositions, one-shot and persistent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { callTool, serverDirs, textOf } from '../support/mcp-clients.js';
import { bwrapUsable, NEEDS_BWRAP } from '../support/bwrap.js';

const COLLECTOR_SECRET = 'Bearer otel-collector-secret-0123456789';

const compositions: [string, string[]][] = [
  ['local, one-shot', []],
  ['local, persistent', ['--shell', 'persistent']],
];
if (bwrapUsable) {
  compositions.push(['bwrap read-only, one-shot', ['--sandbox', 'read-only']], ['bwrap read-only, persistent', ['--sandbox', 'read-only', '--shell', 'persistent']]);
}

describe(`the server's telemetry settings never reach a command${NEEDS_BWRAP && ' (bwrap compositions not run)'}${NEEDS_BWRAP}`, () => {
  let dirs: ReturnType<typeof serverDirs>;
  let preload: string;
  beforeAll(() => {
    ensureBuilt();
    dirs = serverDirs();
    preload = mkdtempSync(path.join(os.tmpdir(), 'dsh-otel-'));
    // Stands in for the SDK's register script; it proves the server itself loaded it.
    writeFileSync(path.join(preload, 'register.cjs'), 'globalThis.__otelRegistered = true;\n');
  });
  afterAll(() => {
    dirs.cleanup();
    rmSync(preload, { recursive: true, force: true });
  });

  it.each(compositions)('%s', async (_label, args) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN_JS, 'serve', '--workspace', dirs.workspace, ...args],
      env: {
        ...getDefaultEnvironment(),
        DSH_HOME: dirs.dshHome,
        NODE_OPTIONS: `--require ${path.join(preload, 'register.cjs')}`,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=${COLLECTOR_SECRET}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318',
        OTEL_SERVICE_NAME: 'dsh-tools',
        LD_PRELOAD: '',
        PLAIN_SETTING: 'plain',
      },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'dsh-otel-env', version: '1.0.0' });
    await client.connect(transport);
    try {
      const names = textOf(await callTool(client, 'bash', { command: "env | cut -d= -f1 | grep -E '^(NODE_|OTEL_|LD_|PLAIN_)' | sort", description: 'Inherited names' }));
      expect(names.split('\n')).toEqual(['PLAIN_SETTING']);
      // Nor under any other name, nor through a node the command starts.
      const node = textOf(await callTool(client, 'bash', { command: `env | grep -c otel-collector-secret; ${process.execPath} -e 'console.log(String(globalThis.__otelRegistered))'; true`, description: 'Values and preload' }));
      expect(node).toBe('0\nundefined');
    } finally {
      await client.close();
    }
  }, 60_000);
});
