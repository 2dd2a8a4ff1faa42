// `dsh-tools serve` with --audit-log, /metrics over HTTP and --metrics-port on stdio: the built CLI, real clients.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rawRequest } from '../support/raw-http.js';
import { callTool, serverDirs, startHttpServer, startStdioServer, waitUntil } from '../support/mcp-clients.js';

const bashArgs = (command: string) => ({ command, description: 'Run a test command' });

/** The call records of the audit log (server events, such as the refused /metrics request, carry an `event`). */
function auditRecords(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.event === undefined);
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('serve --http with --audit-log', () => {
  it('audits each call and counts it on /metrics, which needs the token', async () => {
    const dirs = serverDirs();
    const file = path.join(dirs.root, 'audit.jsonl');
    const server = await startHttpServer({ ...dirs, args: ['--audit-log', file] });
    try {
      const { client } = await server.connect();
      await callTool(client, 'bash', bashArgs('echo one'));
      await callTool(client, 'bash', bashArgs('exit 7'));
      const metricsUrl = new URL('/metrics', server.url);
      expect((await rawRequest(metricsUrl, { method: 'GET' })).status).toBe(401);
      const reply = await rawRequest(metricsUrl, { method: 'GET', headers: { authorization: `Bearer ${server.token}` } });
      expect(reply.status).toBe(200);
      expect(sample(reply.body, 'dsh_tool_calls_total{tool="bash",outcome="ok"}')).toBe(1);
      expect(sample(reply.body, 'dsh_tool_calls_total{tool="bash",outcome="exit_nonzero"}')).toBe(1);
      expect(sample(reply.body, 'dsh_sessions_active')).toBe(1);
      const records = auditRecords(file);
      expect(records.map((r) => [r.tool, r.command, r.outcome, r.exitCode, r.mode])).toEqual([
        ['bash', 'echo one', 'ok', 0, 'local'],
        ['bash', 'exit 7', 'exit_nonzero', 7, 'local'],
      ]);
      expect(records[0]!.session).toBe(records[1]!.session);
      await client.close();
    } finally {
      server.process.kill('SIGTERM');
      await server.exited;
      dirs.cleanup();
    }
  }, 120_000);
});

describe('serve (stdio) with --metrics-port and --audit-log', () => {
  it('serves /metrics on a loopback port without a token and audits the persistent shell', async () => {
    const dirs = serverDirs();
    const file = path.join(dirs.root, 'audit.jsonl');
    const server = await startStdioServer({ ...dirs, args: ['--shell', 'persistent', '--metrics-port', '0', '--audit-log', file] });
    try {
      await server.call('bash', { command: 'cd /; echo first' });
      await server.call('bash', { command: 'pwd' });
      await waitUntil(() => /metrics at (\S+)/.test(server.stderr()), 'the metrics URL is printed');
      const url = new URL(/metrics at (\S+)/.exec(server.stderr())![1]!);
      expect(url.hostname).toBe('127.0.0.1');
      const reply = await rawRequest(url, { method: 'GET' });
      expect(reply.status).toBe(200);
      expect(sample(reply.body, 'dsh_tool_calls_total{tool="bash",outcome="ok"}')).toBe(2);
      expect(sample(reply.body, 'dsh_persistent_shells_open')).toBe(1);
      expect(auditRecords(file).map((r) => r.command)).toEqual(['cd /; echo first', 'pwd']);
    } finally {
      await server.close();
      dirs.cleanup();
    }
  }, 120_000);

  it('refuses --metrics-public without --http', async () => {
    const dirs = serverDirs();
    try {
      await expect(startStdioServer({ ...dirs, args: ['--metrics-public'] })).rejects.toThrow();
    } finally {
      dirs.cleanup();
    }
  }, 60_000);
});
