// Issue 18 row 10, attack 1: with `allow: echo` and `defaultAction: deny`,
// `echo hi #'` + newline + `rm -f victim #'` ran `rm`: the old splitter read
// the `'` inside the comment as an open quote and saw one `echo` command.
import { ALLOW_ECHO, DENY_RM, verdictOf } from './support/command-rules-policy.js';
import { ruleHost, type RuleHost, type Shell } from './support/command-rules-host.js';

const ATTACK = "echo hi #'\nrm -f victim #'";

describe('command rules: a quote inside a comment, then a newline', () => {
  it('the policy sees the second line as its own command and denies it', async () => {
    expect(await verdictOf(ALLOW_ECHO, ATTACK)).toEqual({ verdict: 'deny', detail: 'command denied by policy: default' });
    expect(await verdictOf(DENY_RM, ATTACK)).toEqual({ verdict: 'deny', detail: 'command denied by policy: rm' });
  });

  describe.each<Shell>(['oneshot', 'persistent'])('real bash, %s shell', (shell) => {
    let host: RuleHost;
    beforeAll(async () => (host = await ruleHost(shell, ALLOW_ECHO)));
    afterAll(() => host.dispose());

    it('the victim file survives and the call says why', async () => {
      const result = await host.run(ATTACK);
      expect(result).toEqual({ text: 'Error: command denied by policy: default', victimSurvived: true });
    });

    it('an allowed echo still runs', async () => {
      expect(await host.run("echo hi #'")).toEqual({ text: 'hi', victimSurvived: true });
    });
  });
});
