// The same class as issue 18 row 10, one level down: bash evaluates some
// variable values as code — arithmetic (`$((x))`, `[[ $x -eq 1 ]]`), `[[ -v ]]`
// on a subscript, `${!x}`, `${x@P}` — so a harmless-looking assignment in one
// call (the persistent shell keeps it) runs `rm` in the next. A `deny: rm`
// rule cannot see that; the checker treats those reads as unknown.
import { DENY_RM, verdictOf } from './support/command-rules-policy.js';
import { ruleHost, type RuleHost } from './support/command-rules-host.js';

const SET = "a=(1); x='a[$(rm -f victim)]'; p='$(rm -f victim)'";
const READS = ['echo $((x))', '[[ $x -eq 1 ]]', '[[ -v $x ]]', 'echo ${!x}', 'echo "${p@P}"'];
const REFUSED = 'Error: command not approved: no approval answerer is configured';

describe('command rules: reads that evaluate a variable value as code', () => {
  it.each(READS)('%j is unknown to the policy (ask beside a deny rule)', async (read) => {
    expect((await verdictOf(DENY_RM, read)).verdict).toBe('unknown ask');
  });

  describe('real bash, persistent shell (state kept between calls)', () => {
    let host: RuleHost;
    beforeAll(async () => (host = await ruleHost('persistent', DENY_RM)));
    afterAll(() => host.dispose());

    it.each(READS)('after the assignment call, %j is refused and the victim survives', async (read) => {
      expect(await host.run(SET)).toEqual({ text: '(no output)', victimSurvived: true });
      expect(await host.run(read)).toEqual({ text: REFUSED, victimSurvived: true });
    });
  });

  describe('real bash, one-shot shell', () => {
    let host: RuleHost;
    beforeAll(async () => (host = await ruleHost('oneshot', DENY_RM)));
    afterAll(() => host.dispose());

    it.each(READS)('%j after the assignment in the same line is refused', async (read) => {
      expect(await host.run(`${SET}; ${read}`)).toEqual({ text: REFUSED, victimSurvived: true });
    });
  });
});
