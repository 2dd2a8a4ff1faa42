// Issue 18 row 10, the whole class: every construct in the table of
// docs/security/command-rules.md is judged by the real policy, under an
// allow-list (`allow: echo`, default deny) and a deny-list (`deny: rm`,
// default allow). The table is the behaviour: editing one edits the other.
import { ALLOW_ECHO, DENY_RM, constructTable, verdictOf } from './support/command-rules-policy.js';

const table = constructTable();

describe('command rules: construct table', () => {
  it('the table has the constructs the issue names', () => {
    expect(table.length).toBeGreaterThan(60);
    expect(table.map((row) => row.example)).toEqual(expect.arrayContaining(["echo hi #'\nrm -f victim #'", "echo $'\\'' ; rm -f victim # '"]));
  });

  it.each(table.map((row) => [row.construct, row.example, row.allowEcho] as const))('allow: echo, default deny — %s: %j → %s', async (_construct, example, expected) => {
    expect((await verdictOf(ALLOW_ECHO, example)).verdict).toBe(expected);
  });

  it.each(table.map((row) => [row.construct, row.example, row.denyRm] as const))('deny: rm, default allow — %s: %j → %s', async (_construct, example, expected) => {
    expect((await verdictOf(DENY_RM, example)).verdict).toBe(expected);
  });
});
