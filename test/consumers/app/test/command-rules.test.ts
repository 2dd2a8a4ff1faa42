// Command rules from the packed package: the bash parser loads in CommonJS
// jest (no import()) as well as in ESM mode, and judges a real shell's calls.
import 'reflect-metadata';
import { createHost, judgeCommand, localEnvironment } from 'dsh-tools';
import { tmpdir } from 'node:os';

it('judges a line with the bash parser', async () => {
  const rules = [{ match: 'echo', action: 'allow' as const }];
  expect(await judgeCommand("echo hi #'\nrm -f victim #'", rules, 'deny')).toMatchObject({ action: 'deny', part: 'rm -f victim' });
  expect((await judgeCommand('eval x', rules, 'deny')).rule).toMatch(/^not understood: /);
});

it('refuses a hidden command on a real PTY and runs an allowed one', async () => {
  const approval = { rules: [{ match: 'echo', action: 'allow' as const }], defaultAction: 'deny' as const };
  const host = await createHost(...localEnvironment({ workspace: tmpdir(), shell: 'persistent', approval }));
  try {
    const session = host.openSession({ cwd: tmpdir() });
    expect((await session.call('bash', { command: "echo hi #'\nfalse #'" })).content[0]?.text).toBe('Error: command denied by policy: default');
    expect((await session.call('bash', { command: 'echo hi' })).content[0]?.text).toBe('hi');
  } finally {
    await host.dispose();
  }
});
