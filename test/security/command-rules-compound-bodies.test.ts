// Issue 18 row 10, attack 3: a `deny: rm` rule missed `rm` inside compound
// commands and behind keywords: `if :; then rm …; fi`, `! rm`, `time rm`,
// `for … do rm`; the same class: while/until/case bodies, functions called
// later, coproc, wrappers.
import { DENY_RM, verdictOf } from './support/command-rules-policy.js';
import { ruleHost, type RuleHost, type Shell } from './support/command-rules-host.js';

const ATTACKS = [
  'if :; then rm -f victim; fi',
  '! rm -f victim',
  'time rm -f victim',
  'for f in victim; do rm -f "$f"; done',
  'while rm -f victim; do break; done',
  'until rm -f victim; do :; done',
  'case x in x) rm -f victim;; esac',
  'f() { rm -f victim; }; f',
  'coproc rm -f victim',
  'command rm -f victim',
  'env A=1 nice -n 1 rm -f victim',
  'find . -name victim -exec rm -f {} \\;',
  '/bin/rm -f victim',
  "'r'm -f victim",
];

describe('command rules: rm in compound commands and behind keywords or wrappers', () => {
  it.each(ATTACKS)('the policy denies %j by the rm rule', async (attack) => {
    expect(await verdictOf(DENY_RM, attack)).toEqual({ verdict: 'deny', detail: 'command denied by policy: rm' });
  });

  describe.each<Shell>(['oneshot', 'persistent'])('real bash, %s shell', (shell) => {
    let host: RuleHost;
    beforeAll(async () => (host = await ruleHost(shell, DENY_RM)));
    afterAll(() => host.dispose());

    it.each(ATTACKS)('%j leaves the victim in place', async (attack) => {
      expect(await host.run(attack)).toEqual({ text: 'Error: command denied by policy: rm', victimSurvived: true });
    });

    it('eval is not understood: without an answerer the ask fails closed', async () => {
      expect(await host.run('eval "rm -f victim"')).toEqual({
        text: 'Error: command not approved: no approval answerer is configured',
        victimSurvived: true,
      });
    });
  });
});
