// SIGHUP to the built `serve`: the audit file is reopened at its path (logrotate's `postrotate`), the server keeps serving;
// a removed audit file is noticed and written anew. stdio and HTTP, real clients.
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { callTool, serverDirs, startHttpServer, startStdioServer, textOf, waitUntil } from '../support/mcp-clients.js';

const bashArgs = (command: string) => ({ command, description: 'Run a test command' });

function commands(file: string): unknown[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { command: unknown }).command);
}

const reopenedLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('audit: reopened audit file')).length;

describe('serve: SIGHUP reopens the audit file', () => {
  it('stdio: rotate, HUP, call: earlier records in the moved file, later ones in the new file, none lost or twice', async () => {
    const dirs = serverDirs();
    const file = path.join(dirs.root, 'audit.jsonl');
    const server = await startStdioServer({ ...dirs, args: ['--audit-log', file, '--log-level', 'info'] });
    try {
      expect(textOf(await server.call('bash', bashArgs('echo one')))).toContain('one');
      await server.call('bash', bashArgs('echo two'));
      renameSync(file, `${file}.1`);
      process.kill(server.pid, 'SIGHUP');
      await waitUntil(() => reopenedLines(server.stderr()) === 1, 'the reopen is logged');
      expect(server.stderr()).toContain('SIGHUP: reopening log files');
      expect(existsSync(file)).toBe(true);
      expect(textOf(await server.call('bash', bashArgs('echo three')))).toContain('three');
      expect(commands(`${file}.1`)).toEqual(['echo one', 'echo two']);
      expect(commands(file)).toEqual(['echo three']);
    } finally {
      await server.close();
      dirs.cleanup();
    }
  }, 120_000);

  it('HTTP: rotate, HUP, call; then rm the file and call: every record lands once, and no audit failure is counted', async () => {
    const dirs = serverDirs();
    const file = path.join(dirs.root, 'audit.jsonl');
    const server = await startHttpServer({ ...dirs, args: ['--audit-log', file, '--log-level', 'info'] });
    try {
      const { client } = await server.connect();
      await callTool(client, 'bash', bashArgs('echo one'));
      renameSync(file, `${file}.1`);
      server.process.kill('SIGHUP');
      await waitUntil(() => reopenedLines(server.stderr()) === 1, 'the reopen is logged');
      await callTool(client, 'bash', bashArgs('echo two'));
      expect(commands(`${file}.1`)).toEqual(['echo one']);
      expect(commands(file)).toEqual(['echo two']);

      rmSync(file);
      await callTool(client, 'bash', bashArgs('echo three'));
      expect(commands(file)).toEqual(['echo three']);
      // The warning reaches stderr through a pipe of its own: wait for it rather than race the record.
      const notice = `audit: ${file} was removed or replaced; writing to a new file at that path`;
      await waitUntil(() => server.stderr().includes(notice), 'the new file is logged');
      const metrics = await fetch(new URL('/metrics', server.url), { headers: { authorization: `Bearer ${server.token}` } });
      expect(await metrics.text()).toMatch(/^dsh_audit_failures_total 0$/m);
      expect(server.process.exitCode).toBeNull();
      await client.close();
      // A stop after all that still drains, and says so in one structured line at each end.
      server.process.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toMatch(/^dsh-tools info: drain: started event=drain_start timeoutMs=30000$/m);
      expect(server.stderr()).toMatch(/^dsh-tools info: drain: ended event=drain_end outcome=answered durationMs=\d+$/m);
    } finally {
      if (server.process.exitCode === null) server.process.kill('SIGKILL');
      await server.exited;
      dirs.cleanup();
    }
  }, 120_000);
});
