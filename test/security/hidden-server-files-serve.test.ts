// Issue 33, item 2, as the attack was run: `serve --http --sandbox read-only` with its token under a
// /run/secrets-like directory and an audit log; a confined command tries to read both. Neither is readable.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { callTool, serverDirs, startHttpServer, type HttpServer } from '../support/mcp-clients.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const TOKEN = 'served-token-9e4b1d7c2a6f80';

describeWithBwrap(`serve: the token file and the audit log are hidden from confined commands${NEEDS_BWRAP}`, () => {
  let dirs: ReturnType<typeof serverDirs>;
  let secrets: string;
  let server: HttpServer | undefined;
  beforeAll(() => {
    dirs = serverDirs();
    mkdirSync('/run', { recursive: true });
    secrets = mkdtempSync(path.join(process.getuid?.() === 0 ? '/run' : dirs.root, 'dsh-secrets-'));
  });
  afterAll(async () => {
    if (server) {
      server.process.kill('SIGTERM');
      await server.exited;
    }
    rmSync(secrets, { recursive: true, force: true });
    dirs.cleanup();
  });

  it('cat of the token file and the audit log shows neither, one call after another', async () => {
    const token = path.join(secrets, 'token');
    const audit = path.join(secrets, 'audit.jsonl');
    writeFileSync(token, `${TOKEN}\n`, { mode: 0o600 });
    server = await startHttpServer({
      workspace: dirs.workspace,
      dshHome: dirs.dshHome,
      args: ['--sandbox', 'read-only', '--token-file', token, '--audit-log', audit],
      token: TOKEN,
    });
    const { client } = await server.connect();
    try {
      const command = `cat ${token} ${audit} 2>&1; echo "exit $?"`;
      for (let round = 0; round < 2; round++) {
        const result = await callTool(client, 'bash', { command, description: 'Read the server files' });
        const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
        expect(text).toMatch(/exit \d/);
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain('"tool"');
      }
      // The records are there: the audit log was written, just never shown to the command.
      expect(readFileSync(audit, 'utf8')).toContain('"bash"');
    } finally {
      await client.close();
    }
  }, 240_000);
});
