// Command rules in both shells: every path of allow / deny / ask, and a
// compound command that cannot pass on its first part's allow rule.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApprovalService, createHost, localEnvironment, type ApprovalRequest, type CommandRule, type DshHost } from '../../../../src/index.js';
import { InMemoryTerminal, ScriptedApprovalAnswerer, ScriptedExecutor, testingEnvironment } from '../../../../src/testing.js';

const RULES: CommandRule[] = [
  { match: 'git status', action: 'allow' },
  { match: '/^rm\\b/', action: 'deny' },
  { match: 'npm publish', action: 'ask', name: 'publishing' },
];

type Shell = 'oneshot' | 'persistent';

/** A host over fakes that records what actually ran, in either shell. */
async function hostFor(shell: Shell, answers: ApprovalRequest[] | undefined, decisions: Array<'allowed-once' | 'rejected'> = [], defaultAction: 'allow' | 'deny' = 'allow') {
  const ran: string[] = [];
  const executor = new ScriptedExecutor({}, (spec) => (ran.push(spec.command), { stdout: 'ran\n' }));
  const terminal = new InMemoryTerminal((command) => (ran.push(command), 'ran\n'));
  const answerer = new ScriptedApprovalAnswerer(decisions);
  const host = await createHost(
    ...testingEnvironment({
      shell,
      executor,
      terminal,
      answerers: answers === undefined ? [] : [answerer],
      approval: { rules: RULES, defaultAction },
    }),
  );
  return { host, ran, answerer };
}

const sessions = new WeakMap<DshHost, ReturnType<DshHost['openSession']>>();
/** One call in the host's `agent-1` session (opened on first use). */
function call(host: DshHost, command: string) {
  let session = sessions.get(host);
  if (!session) sessions.set(host, (session = host.openSession({ id: 'agent-1', cwd: '/repo' })));
  return session.call('bash', { command, description: 'Run' });
}

describe.each<Shell>(['oneshot', 'persistent'])('command policy in the %s shell', (shell) => {
  let host: DshHost;
  afterEach(() => host?.dispose());

  it('runs a command an allow rule matches', async () => {
    const t = await hostFor(shell, undefined);
    host = t.host;
    expect((await call(host, 'git status -s')).content[0]!.text).toBe('ran');
    expect(t.ran).toEqual(['git status -s']);
  });

  it('denies by rule without running anything, naming the rule', async () => {
    const t = await hostFor(shell, undefined);
    host = t.host;
    const result = await call(host, 'rm -rf build');
    expect(result).toMatchObject({ isError: true, content: [{ text: 'Error: command denied by policy: /^rm\\b/' }] });
    expect(t.ran).toEqual([]);
  });

  it('judges each part of a compound command: an allowed first part does not carry the rest', async () => {
    const t = await hostFor(shell, undefined);
    host = t.host;
    for (const line of ['git status && rm -rf x', 'git status; rm -rf x', 'git status | rm -rf x', 'git status $(rm -rf x)', 'git status `rm -rf x`', 'git status && (rm -rf x)']) {
      expect((await call(host, line)).content[0]!.text).toBe('Error: command denied by policy: /^rm\\b/');
    }
    expect(t.ran).toEqual([]);
  });

  it('the default action applies to commands no rule matches', async () => {
    const t = await hostFor(shell, undefined, [], 'deny');
    host = t.host;
    expect((await call(host, 'ls')).content[0]!.text).toBe('Error: command denied by policy: default');
    expect(t.ran).toEqual([]);
  });

  it('ask: runs once the user allows it; the request carries the structured facts', async () => {
    const t = await hostFor(shell, [], ['allowed-once']);
    host = t.host;
    expect((await call(host, 'npm publish')).content[0]!.text).toBe('ran');
    expect(t.ran).toEqual(['npm publish']);
    expect(t.answerer.requests).toHaveLength(1);
    expect(t.answerer.requests[0]).toMatchObject({ tool: 'bash', kind: 'command', command: 'npm publish', rule: 'publishing' });
    // The persistent shell runs wherever its last `cd` left it: its start directory would be a false fact.
    expect(t.answerer.requests[0]!.workdir).toBe(shell === 'oneshot' ? '/repo' : undefined);
  });

  it('ask: a user rejection says who rejected it, and nothing runs', async () => {
    const t = await hostFor(shell, [], ['rejected']);
    host = t.host;
    expect((await call(host, 'npm publish')).content[0]!.text).toBe('Error: command rejected by the user');
    expect(t.ran).toEqual([]);
  });

  it('ask: a session whose approval policy is never is rejected by that policy, without asking', async () => {
    const t = await hostFor(shell, [], ['allowed-once']);
    host = t.host;
    host.get(ApprovalService).setPolicy('agent-1', 'never');
    expect((await call(host, 'npm publish')).content[0]!.text).toBe('Error: command rejected by policy never');
    expect(t.answerer.requests).toEqual([]);
    expect(t.ran).toEqual([]);
  });

  it('ask: fails closed without an answerer', async () => {
    const t = await hostFor(shell, undefined);
    host = t.host;
    expect((await call(host, 'npm publish')).content[0]!.text).toBe('Error: command not approved: no approval answerer is configured');
    expect(t.ran).toEqual([]);
  });
});

describe('command policy over real bash', () => {
  it('a denied command never reaches the shell', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dsh-policy-'));
    const marker = path.join(dir, 'created');
    for (const shell of ['oneshot', 'persistent'] as const) {
      const host = await createHost(
        ...localEnvironment({ workspace: dir, shell, approval: { rules: [{ match: 'touch', action: 'deny' }] } }),
      );
      try {
        const result = await host.openSession({ cwd: dir }).call('bash', { command: `true && touch ${marker}`, description: 'Touch' });
        expect(result.content[0]!.text).toBe('Error: command denied by policy: touch');
        expect(existsSync(marker)).toBe(false);
      } finally {
        await host.dispose();
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
