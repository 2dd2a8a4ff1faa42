// The operator console against the server's own commands (issue 35): a
// command of a session, even handed the operator token, cannot read the
// console nor answer an approval or kill a task through it (the peer check
// of /mcp and /approvals); the same requests from outside can. And a
// confined command cannot read the operator token file (a hidden server file).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '../../src/core/tool-contract.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { ApprovalService } from '../../src/providers/policy/approval/approval-service.js';
import { consoleRig, OPERATOR_TOKEN, tokenFile, type ConsoleRig } from '../support/console-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { callTool, serverDirs, startHttpServer } from '../support/mcp-clients.js';

const textOf = (result: ToolResult | { content: readonly { type: string; text?: string }[] }) =>
  ('content' in result ? result.content : []).map((block) => (block as { text?: string }).text ?? '').join('');

/** A node one-liner the command runs: each request's status and first line, one per line. */
function requests(origin: string, list: ReadonlyArray<{ path: string; method?: string; token?: string; body?: string }>): string {
  const calls = list.map((r) => `fetch(${JSON.stringify(origin + r.path)}, { method: ${JSON.stringify(r.method ?? 'GET')}, headers: ${JSON.stringify(r.token ? { authorization: `Bearer ${r.token}` } : {})}${r.body === undefined ? '' : `, body: ${JSON.stringify(r.body)}`} }).then(async (res) => ${JSON.stringify(r.path)} + ' ' + res.status + ' ' + (await res.text()).split('\\n')[0])`);
  return `${JSON.stringify(process.execPath)} -e ${JSON.stringify(`Promise.all([${calls.join(', ')}]).then((lines) => console.log(lines.join('\\n')))`)}`;
}

describe('the console refuses the commands of its own server', () => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    rig = await consoleRig((dir) => localEnvironment({ workspace: dir, logLevel: 'error', approval: { rules: [{ match: 'touch', action: 'ask' }] } }));
  });
  afterAll(async () => rig.close());

  it('a command holding the operator token can neither read the console nor approve, deny or kill through it', async () => {
    const marker = path.join(rig.dir, 'self-approved');
    const waiting = rig.host.openSession({ cwd: rig.dir }).call('bash', { command: `touch ${marker}`, description: 'Touch' });
    const id = await rig.nextPending();
    const attacker = rig.host.openSession({ cwd: rig.dir });
    const out = textOf(
      await attacker.call('bash', {
        command: requests(rig.origin, [
          { path: '/console/api/state', token: OPERATOR_TOKEN },
          { path: '/console/api/events', token: OPERATOR_TOKEN },
          { path: `/console/api/approvals/${id}`, method: 'POST', token: OPERATOR_TOKEN, body: '{"verdict":"approve"}' },
          { path: `/console/api/approvals/${id}`, method: 'POST', body: '{"verdict":"approve"}' },
          { path: '/console/api/sessions/x/tasks/bash-1/kill', method: 'POST', token: OPERATOR_TOKEN, body: '{}' },
          { path: '/console', token: OPERATOR_TOKEN },
        ]),
        description: 'Answer it myself',
      }),
    );
    const lines = out.trim().split('\n').filter((line) => line.startsWith('/console'));
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).toMatch(/^\/console\S* 403 forbidden: this connection comes from a command of a dsh-tools server \(pid \d+\)/);
    // Still waiting: nobody answered it.
    expect(rig.parts.answerer.pending().map((p) => p.id)).toEqual([id]);
    // The operator, from outside, can.
    const denied = await rig.api(`/console/api/approvals/${id}`, { method: 'POST', body: '{"verdict":"deny"}' });
    expect(denied.status).toBe(200);
    expect((await waiting).isError).toBe(true);
    expect(rig.host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision: 'rejected', answeredBy: 'console:oscar' });
  });
});

describeWithBwrap(`serve --console: a confined command cannot read the operator token file${NEEDS_BWRAP}`, () => {
  it('cat of the operator token file shows no token', async () => {
    const dirs = serverDirs();
    mkdirSync('/run', { recursive: true });
    const secrets = mkdtempSync(path.join(process.getuid?.() === 0 ? '/run' : dirs.root, 'dsh-operators-'));
    const operators = tokenFile(secrets, 'operators', { oscar: OPERATOR_TOKEN });
    const server = await startHttpServer({
      workspace: dirs.workspace,
      dshHome: dirs.dshHome,
      args: ['--sandbox', 'read-only', '--console', '--operator-token-file', operators],
      env: { DSH_HTTP_TOKEN: 'caller-token-for-the-peer-test' },
      token: 'caller-token-for-the-peer-test',
    });
    try {
      const { client, transport } = await server.connect();
      const result = await callTool(client, 'bash', { command: `cat ${operators} 2>&1; echo "exit $?"`, description: 'Read the operator tokens' });
      const text = textOf(result);
      expect(text).toMatch(/exit \d/);
      expect(text).not.toContain(OPERATOR_TOKEN);
      // The console itself is up and takes the token from outside.
      const state = await fetch(new URL('/console/api/state', server.url), { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect(state.status).toBe(200);
      await transport.close();
    } finally {
      server.process.kill('SIGTERM');
      await server.exited;
      rmSync(secrets, { recursive: true, force: true });
      dirs.cleanup();
    }
  }, 60_000);
});
