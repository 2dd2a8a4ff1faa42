// Issue 22 item 2: approvals in the 2026-07-28 era are input_required round
// trips; the real 2.x SDK client answers them with its elicitation handler,
// over stdio and HTTP, and only an accept runs the command.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeWithBwrap } from '../support/bwrap.js';
import { serverDirs, type HttpServer } from '../support/mcp-clients.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { approvingClient, modernText, overHttp, overStdio, type ApprovingClient } from '../support/modern-client.js';

const RULE = ['approval:', '  rules:', '    - { match: echo approve-me, action: ask, name: modern approval }', ''].join('\n');
const ASKED = ['Mode: no sandbox mode', 'Command (1 line): "echo approve-me"', `Directory: `, 'Rule: "modern approval"', 'Tool: bash', 'Allow it to run?'];

function configIn(root: string): string {
  const file = path.join(root, 'approvals.yaml');
  writeFileSync(file, RULE);
  return file;
}

async function approveMe(approver: ApprovingClient): Promise<{ text: string; isError: boolean }> {
  const result = await approver.client.callTool({ name: 'bash', arguments: { command: 'echo approve-me', description: 'Ask first' } });
  return { text: modernText(result), isError: (result as { isError?: boolean }).isError ?? false };
}

function expectAskedOnce(approver: ApprovingClient, workspace: string): void {
  expect(approver.asked).toHaveLength(1);
  const lines = approver.asked[0]!.split('\n');
  expect(lines).toHaveLength(ASKED.length);
  expect(lines[2]).toBe(`Directory: ${JSON.stringify(workspace)}`);
  expect([...lines.slice(0, 2), ...lines.slice(3)]).toEqual([...ASKED.slice(0, 2), ...ASKED.slice(3)]);
}

describe('stdio, 2026-07-28: an `ask` rule', () => {
  let dirs: ReturnType<typeof serverDirs>;
  beforeEach(() => (dirs = serverDirs()));
  afterEach(() => dirs.cleanup());

  test('approve: the client is asked once with the approval text, the command runs once', async () => {
    const approver = approvingClient();
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--config', configIn(dirs.root)]);
    try {
      expect(await approveMe(approver)).toEqual({ text: 'approve-me', isError: false });
      expectAskedOnce(approver, dirs.workspace);
    } finally {
      await approver.client.close();
    }
  }, 60_000);

  test('decline: "Error: command rejected by the user", nothing runs', async () => {
    const approver = approvingClient();
    approver.answer = { action: 'decline' };
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--config', configIn(dirs.root)]);
    try {
      expect(await approveMe(approver)).toEqual({ text: 'Error: command rejected by the user', isError: true });
      expect(approver.asked).toHaveLength(1);
    } finally {
      await approver.client.close();
    }
  }, 60_000);

  test('a client without elicitation: fails closed as in the 2025 eras', async () => {
    const approver = approvingClient({});
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--config', configIn(dirs.root)]);
    try {
      expect(await approveMe(approver)).toEqual({ text: 'Error: command not approved: no approver gave a decision', isError: true });
    } finally {
      await approver.client.close();
    }
  }, 60_000);

  test('a client with URL-mode elicitation only: "approval needs form input", nothing runs', async () => {
    const approver = approvingClient({ elicitation: { url: {} } });
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--config', configIn(dirs.root)]);
    try {
      const result = await approveMe(approver);
      expect(result).toEqual({ text: 'Error: command not approved: approval needs form input; this client offers only URL-mode elicitation', isError: true });
      expect(approver.asked).toEqual([]);
    } finally {
      await approver.client.close();
    }
  }, 60_000);
});

describe('HTTP, 2026-07-28: an `ask` rule', () => {
  const suite = httpServerForSuite({ args: (made) => ['--config', configIn(made.root)] });
  let dirs: ReturnType<typeof serverDirs>;
  let server: HttpServer;
  beforeAll(() => void ({ server, dirs } = suite));

  test('approve: asked once, the command runs once', async () => {
    const approver = approvingClient();
    await overHttp(approver, server.url, server.token!);
    try {
      expect(await approveMe(approver)).toEqual({ text: 'approve-me', isError: false });
      expectAskedOnce(approver, dirs.workspace);
    } finally {
      await approver.client.close();
    }
  }, 60_000);

  test('decline: "Error: command rejected by the user", nothing runs', async () => {
    const approver = approvingClient();
    approver.answer = { action: 'decline' };
    await overHttp(approver, server.url, server.token!);
    try {
      expect(await approveMe(approver)).toEqual({ text: 'Error: command rejected by the user', isError: true });
    } finally {
      await approver.client.close();
    }
  }, 60_000);
});

describeWithBwrap('stdio, 2026-07-28: a sandbox escalation (bwrap)', () => {
  let dirs: ReturnType<typeof serverDirs>;
  beforeEach(() => (dirs = serverDirs()));
  afterEach(() => dirs.cleanup());

  const escalate = (approver: ApprovingClient) =>
    approver.client.callTool({
      name: 'bash',
      arguments: { command: 'touch made-here && echo wrote', description: 'Write', sandbox_permissions: 'workspace-write', justification: 'Creates a marker file.' },
    });

  test('approve: the escalation text is shown, the command runs once under the wider mode', async () => {
    const approver = approvingClient();
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--sandbox', 'read-only']);
    try {
      expect(modernText(await escalate(approver))).toBe('wrote');
      expect(approver.asked).toHaveLength(1);
      expect(approver.asked[0]!.split('\n')[0]).toBe('Mode: workspace-write (wider than this session\'s read-only; this call only)');
      expect(approver.asked[0]).toContain('Justification (from the model): "Creates a marker file."');
      expect(existsSync(path.join(dirs.workspace, 'made-here'))).toBe(true);
    } finally {
      await approver.client.close();
    }
  }, 60_000);

  test('decline: "Error: escalation rejected by the user", nothing is written', async () => {
    const approver = approvingClient();
    approver.answer = { action: 'decline' };
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--sandbox', 'read-only']);
    try {
      expect(modernText(await escalate(approver))).toBe('Error: escalation rejected by the user');
      expect(existsSync(path.join(dirs.workspace, 'made-here'))).toBe(false);
    } finally {
      await approver.client.close();
    }
  }, 60_000);
});
