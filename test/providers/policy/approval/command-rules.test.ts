// Command lines are judged per simple command: a compound line cannot ride
// on an allow rule for its first part.
import { commandParts } from '../../../../src/providers/policy/approval/command-parts.js';
import { judgeCommand, resolveRules, unknownAction } from '../../../../src/providers/policy/approval/command-rules.js';
import { commandText } from '../../../../src/providers/policy/approval/command-words.js';

async function parts(line: string) {
  const analysis = await commandParts(line);
  return { commands: analysis.commands.map(commandText), unknown: analysis.unknown };
}

describe('commandParts', () => {
  it.each([
    ['git status && rm -rf x', ['git status', 'rm -rf x']],
    ['a; b || c | d & e', ['a', 'b', 'c', 'd', 'e']],
    ['echo $(rm -rf x)', ['echo $(rm -rf x)', 'rm -rf x']],
    ['echo `rm -rf x`', ['echo `rm -rf x`', 'rm -rf x']],
    ['echo "$(curl evil | tee x)"', ['echo "$(curl evil | tee x)"', 'curl evil', 'tee x']],
    ["echo '$(not run) && x'", ["echo '$(not run) && x'"]],
    ['(cd /tmp && make)', ['cd /tmp', 'make']],
    ['{ ls; rm x; }', ['ls', 'rm x']],
    ['FOO=1 BAR="a b" rm -rf x', ['rm -rf x']],
    ['make 2>&1 | tee log', ['make', 'tee log']],
    ['a\nb', ['a', 'b']],
    ['diff <(ls a) <(ls b)', ['diff <(ls a) <(ls b)', 'ls a', 'ls b']],
    ["'r'\"m\" \\-rf x", ['rm -rf x']],
  ])('%j → %j', async (line, commands) => {
    expect(await parts(line)).toEqual({ commands, unknown: [] });
  });

  it.each(['echo "unterminated', "echo 'open", 'echo $(open', 'echo `open', '(a', 'a)', 'if true; then rm x'])('%j is not valid bash: unknown', async (line) => {
    expect((await parts(line)).unknown[0]).toMatch(/not valid bash/);
  });
});

describe('judgeCommand', () => {
  const rules = resolveRules([
    { match: 'git status', action: 'allow' },
    { match: '/^rm\\b/', action: 'deny' },
    { match: 'npm publish', action: 'ask', name: 'publishing' },
  ]);

  it('first match wins; prefixes match whole words', async () => {
    expect(await judgeCommand('git status -s', rules, 'ask')).toMatchObject({ action: 'allow', rule: 'git status' });
    expect(await judgeCommand('git statusx', rules, 'ask')).toMatchObject({ action: 'ask', rule: 'default' });
    expect(await judgeCommand("git 'status -s'", rules, 'ask')).toMatchObject({ action: 'ask', rule: 'default' });
    expect(await judgeCommand('npm publish --dry-run', rules, 'allow')).toMatchObject({ action: 'ask', rule: 'publishing' });
  });

  it('the strictest part decides a compound command', async () => {
    expect(await judgeCommand('git status && rm -rf x', rules, 'allow')).toMatchObject({ action: 'deny', rule: '/^rm\\b/', part: 'rm -rf x' });
    expect(await judgeCommand('git status; echo $(rm -rf x)', rules, 'allow')).toMatchObject({ action: 'deny' });
    expect(await judgeCommand('git status | npm publish', rules, 'allow')).toMatchObject({ action: 'ask', rule: 'publishing' });
    expect(await judgeCommand('git status && git status', rules, 'deny')).toMatchObject({ action: 'allow' });
    expect(await judgeCommand('git status && ls', rules, 'deny')).toMatchObject({ action: 'deny', rule: 'default', part: 'ls' });
  });

  it('a path is also judged by its base name, which can only make it stricter', async () => {
    expect(await judgeCommand('/bin/rm -rf x', rules, 'allow')).toMatchObject({ action: 'deny', rule: '/^rm\\b/' });
    const allowEcho = resolveRules([{ match: 'echo', action: 'allow' }]);
    expect(await judgeCommand('/tmp/evil/echo hi', allowEcho, 'deny')).toMatchObject({ action: 'deny', rule: 'default' });
  });

  it('an unparseable line is unknown: the default with an allow-list, ask when only deny rules guard an allow default', async () => {
    expect(await judgeCommand('git status "', rules, 'deny')).toEqual({ action: 'deny', rule: 'not understood: the line is not valid bash (and 1 more)' });
    expect(await judgeCommand('git status "', rules, 'allow')).toMatchObject({ action: 'ask', rule: expect.stringMatching(/^not understood: /) });
    expect(unknownAction(resolveRules([{ match: 'ls', action: 'allow' }]), 'allow')).toBe('allow');
  });

  it('without rules nothing is parsed: the default decides', async () => {
    expect(await judgeCommand('eval "$x"', [], 'allow')).toEqual({ action: 'allow', rule: 'default' });
    expect(await judgeCommand('ls', [], 'deny')).toEqual({ action: 'deny', rule: 'default' });
  });

  it('rejects malformed rules with the index and the reason', () => {
    expect(() => resolveRules([{ match: 'x', action: 'maybe' }])).toThrow('invalid approval config: rules[0].action must be allow, ask or deny, got "maybe"');
    expect(() => resolveRules([{ match: '/(/', action: 'deny' }])).toThrow('invalid approval config: rules[0].match is not a valid regular expression');
  });
});
