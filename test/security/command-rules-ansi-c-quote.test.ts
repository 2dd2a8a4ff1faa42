// Issue 18 row 10, attack 2: `echo $'\'' ; rm -f victim # '` ran `rm` under
// `allow: echo`: the old splitter ended `$'\''` at the escaped quote and read
// the rest as one quoted string.
import { ALLOW_ECHO, DENY_RM, verdictOf } from './support/command-rules-policy.js';
import { ruleHost, type RuleHost, type Shell } from './support/command-rules-host.js';

const ATTACK = "echo $'\\'' ; rm -f victim # '";

describe("command rules: an ANSI-C string with an escaped quote", () => {
  it('the policy finds the rm after the string', async () => {
    expect(await verdictOf(ALLOW_ECHO, ATTACK)).toEqual({ verdict: 'deny', detail: 'command denied by policy: default' });
    expect(await verdictOf(DENY_RM, ATTACK)).toEqual({ verdict: 'deny', detail: 'command denied by policy: rm' });
  });

  describe.each<Shell>(['oneshot', 'persistent'])('real bash, %s shell', (shell) => {
    let host: RuleHost;
    beforeAll(async () => (host = await ruleHost(shell, ALLOW_ECHO)));
    afterAll(() => host.dispose());

    it('the victim file survives', async () => {
      expect(await host.run(ATTACK)).toEqual({ text: 'Error: command denied by policy: default', victimSurvived: true });
    });

    it("the string alone is an allowed echo", async () => {
      expect(await host.run("echo $'\\''")).toEqual({ text: "'", victimSurvived: true });
    });
  });
});
