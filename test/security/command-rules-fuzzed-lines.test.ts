// Issue 18 row 10 as a property: lines built from quoting tricks, comments,
// separators and compound commands around `rm -f victim`. Under `allow: echo`
// with `defaultAction: deny`: (1) whenever the parser says the line runs rm,
// the policy does not allow it; (2) whenever the policy allows a line, real
// bash running it leaves the victim in place.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { commandParts } from '../../src/providers/policy/approval/command-parts.js';
import { ALLOW_ECHO, verdictOf } from './support/command-rules-policy.js';

const ECHOES = ['echo hi', "echo 'a b'", 'echo "#"', "echo $'\\''", "echo hi #'", 'echo \\\'', 'echo "a\'b"', "echo '\"'", 'echo $((1+2))', "echo \"$'\""];
const RM = 'rm -f victim';
const SEPARATORS = ['; ', '\n', ' && ', ' || ', ' | ', ' & '];

const line: fc.Arbitrary<string> = fc.letrec<{ line: string }>((tie) => ({
  line: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...ECHOES, RM),
    fc.tuple(tie('line'), fc.constantFrom(...SEPARATORS), tie('line')).map(([a, s, b]) => `${a}${s}${b}`),
    tie('line').map((a) => `(${a})`),
    tie('line').map((a) => `{ ${a}; }`),
    tie('line').map((a) => `echo "$(${a})"`),
    tie('line').map((a) => `echo \`${a}\``),
    fc.tuple(tie('line'), tie('line')).map(([a, b]) => `if ${a}; then ${b}; fi`),
    tie('line').map((a) => `! ${a}`),
    tie('line').map((a) => `for i in 1; do ${a}; done`),
    fc.tuple(fc.constantFrom("#'", '#"', '# `', "# $'"), tie('line')).map(([c, a]) => `echo x ${c}\n${a}`),
    // The two row 10 shapes: a quote opened in a comment or by an escaped ANSI-C quote, closed after the payload.
    fc.tuple(fc.constantFrom("'", '"', '`'), tie('line')).map(([q, a]) => `echo x #${q}\n${a} #${q}`),
    tie('line').map((a) => `echo $'\\'' ; ${a} # '`),
  ),
})).line;

describe('command rules: fuzzed lines around rm', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'dsh-fuzz-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a line the parser says runs rm is never allowed by allow: echo', async () => {
    await fc.assert(
      fc.asyncProperty(line, async (command) => {
        const analysis = await commandParts(command);
        const runsRm = analysis.commands.some((words) => words[0]?.literal === 'rm');
        const { verdict } = await verdictOf(ALLOW_ECHO, command);
        if (runsRm) expect(verdict).not.toBe('allow');
      }),
      { numRuns: 400 },
    );
  });

  it('a line allow: echo allows never deletes the victim in real bash', async () => {
    let allowedRuns = 0;
    await fc.assert(
      fc.asyncProperty(line, async (command) => {
        if ((await verdictOf(ALLOW_ECHO, command)).verdict !== 'allow') return;
        allowedRuns += 1;
        const victim = path.join(dir, 'victim');
        writeFileSync(victim, 'keep me\n');
        spawnSync('bash', ['-c', command], { cwd: dir, stdio: 'ignore', timeout: 5000 });
        expect(existsSync(victim)).toBe(true);
      }),
      { numRuns: 150 },
    );
    // The generator must reach allowed lines, or the oracle checks nothing.
    expect(allowedRuns).toBeGreaterThan(10);
  });
});
