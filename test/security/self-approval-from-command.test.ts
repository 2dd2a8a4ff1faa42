// Issue 33 item 2: a confined command must not become its own approver. From
// `serve --http --sandbox read-only` (network on), a command that knows the
// token (or needs none under --no-auth) opens its own MCP session on
// loopback, declares elicitation, asks for danger-full-access and accepts its
// own approval. Every route must be refused and the inner command must never
// run (it would write into the read-only workspace). The same client run by
// the test itself, outside any command, is approved: only the peer differs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, serverDirs, startHttpServer, startStdioServer, textOf, type HttpServer } from '../support/mcp-clients.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const APPROVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/self-approver.mjs');
const REFUSED = 'a command cannot open or use a session of this server, nor answer its approvals';
/** The 2.x client reports only the status of a refused negotiation; the 1.x client quotes the body. */
const refusedText = (era: 'legacy' | 'modern') => (era === 'legacy' ? REFUSED : 'the server denied access (HTTP 403)');
type Outcome = { outcome: 'refused'; message: string } | { outcome: 'result'; text: string };

/** The self-approver as a shell command line (run by the server's shell, or by the test). */
function attack(url: URL, era: 'legacy' | 'modern', token: string, inner: string): string[] {
  return [process.execPath, APPROVER, url.href, era, token, inner];
}
const quoted = (argv: string[]) => argv.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');

/** The JSON line the self-approver printed, out of a tool result's text. */
function outcomeOf(text: string): Outcome {
  const line = text.split('\n').find((entry) => entry.startsWith('{"outcome"'));
  if (!line) throw new Error(`the self-approver printed no outcome:\n${text}`);
  return JSON.parse(line) as Outcome;
}

describeWithBwrap(`a confined command cannot approve its own escalation${NEEDS_BWRAP}`, () => {
  let dirs: ReturnType<typeof serverDirs>;
  const servers: HttpServer[] = [];
  beforeEach(() => {
    dirs = serverDirs();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.process.kill('SIGTERM');
      await server.exited;
    }
    dirs.cleanup();
  });

  const marker = (name: string) => path.join(dirs.workspace, name);
  const start = async (args: string[], token?: string) => {
    const server = await startHttpServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--sandbox', 'read-only', ...args], ...(token ? { token } : {}) });
    servers.push(server);
    return server;
  };
  /** Runs the self-approver inside one of `server`'s commands, through the server's own client. */
  const fromCommand = async (server: HttpServer, argv: string[]): Promise<Outcome> => {
    const { client } = await server.connect();
    try {
      return outcomeOf(textOf(await callTool(client, 'bash', { command: `${quoted(argv)}; true`, description: 'Open a session of my own' })));
    } finally {
      await client.close();
    }
  };

  it('with a token file: refused from a one-shot command, both eras; the same client outside is approved', async () => {
    const secrets = path.join(dirs.root, 'secrets');
    mkdirSync(secrets, { mode: 0o700 });
    const tokenFile = path.join(secrets, 'token');
    const token = 'self-approval-token-0123456789abcdef';
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    // The command knows the token (hiding the file is another layer's job): the refusal must not rest on it.
    const server = await start(['--token-file', tokenFile], token);
    for (const era of ['legacy', 'modern'] as const) {
      const outcome = await fromCommand(server, attack(server.url, era, token, `touch ${marker(`inner-${era}`)}`));
      expect(outcome).toMatchObject({ outcome: 'refused' });
      expect((outcome as { message: string }).message).toContain(refusedText(era));
      expect(existsSync(marker(`inner-${era}`))).toBe(false);
    }
    // The control: the very same client, run by the test (not by a command), gets its escalation.
    const [node, ...argv] = attack(server.url, 'legacy', token, `touch ${marker('outside')}`);
    const outside = spawnSync(node!, argv, { encoding: 'utf8' });
    expect(outcomeOf(outside.stdout)).toMatchObject({ outcome: 'result' });
    expect(existsSync(marker('outside'))).toBe(true);
  }, 120_000);

  it('under --no-auth: refused, no token needed to try, both eras', async () => {
    const server = await start(['--no-auth']);
    for (const era of ['legacy', 'modern'] as const) {
      const outcome = await fromCommand(server, attack(server.url, era, '', `touch ${marker(`no-auth-${era}`)}`));
      expect(outcome).toMatchObject({ outcome: 'refused' });
      expect((outcome as { message: string }).message).toContain(refusedText(era));
      expect(existsSync(marker(`no-auth-${era}`))).toBe(false);
    }
  }, 120_000);

  it('from the persistent shell, and from a process in a new session with a cleared environment', async () => {
    const server = await start(['--no-auth', '--shell', 'persistent']);
    const outcome = await fromCommand(server, attack(server.url, 'legacy', '', `touch ${marker('persistent')}`));
    expect((outcome as { message: string }).message).toContain(REFUSED);
    const { client } = await server.connect();
    try {
      // Its own session, its environment emptied (no tag): still a process inside the sandbox.
      const argv = attack(server.url, 'legacy', '', `touch ${marker('daemon')}`);
      const text = textOf(await callTool(client, 'bash', { command: `setsid -w env -i ${quoted(argv)}; true`, description: 'Detached self-approver' }));
      expect(outcomeOf(text)).toMatchObject({ outcome: 'refused' });
    } finally {
      await client.close();
    }
    expect(existsSync(marker('persistent'))).toBe(false);
    expect(existsSync(marker('daemon'))).toBe(false);
  }, 120_000);

  it("from a stdio server's confined command, against another server's HTTP listener", async () => {
    const listener = await start(['--no-auth']);
    const stdio = await startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--sandbox', 'read-only'] });
    try {
      const text = textOf(await stdio.call('bash', { command: `${quoted(attack(listener.url, 'legacy', '', `touch ${marker('stdio')}`))}; true`, description: 'Reach the other server' }));
      const outcome = outcomeOf(text);
      expect(outcome).toMatchObject({ outcome: 'refused' });
      expect((outcome as { message: string }).message).toContain(REFUSED);
    } finally {
      await stdio.close();
    }
    expect(existsSync(marker('stdio'))).toBe(false);
  }, 120_000);
});
