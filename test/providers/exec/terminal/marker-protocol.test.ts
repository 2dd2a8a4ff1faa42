import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import {
  MARK,
  ansiCQuote,
  commandLine,
  endPrefix,
  inputBytes,
  newToken,
  startMarker,
} from '../../../../src/providers/exec/terminal/marker-protocol.js';

const bashPrintf = (literal: string): string =>
  execFileSync('bash', ['--norc', '--noprofile', '-c', `printf %s ${literal}`], { encoding: 'utf8' });

describe('marker protocol', () => {
  it('ANSI-C quoting round-trips any text through bash (no NUL: bash strings cannot hold it)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => !s.includes('\0')), (text) => {
        const quoted = ansiCQuote(text);
        expect(quoted).not.toMatch(/[\x00-\x1f\x7f]/);
        expect(bashPrintf(quoted)).toBe(text);
      }),
      { numRuns: 60 },
    );
  });

  it('round-trips the awkward cases', () => {
    for (const text of ["it's", 'back\\slash', 'a\nb\r\tc', "$'x'", '"dq" $HOME `id`', '\x1b[31mred', 'ümlaut ✓']) {
      expect(bashPrintf(ansiCQuote(text))).toBe(text);
    }
  });

  it('frames a command as one physical line without marker bytes', () => {
    const nonce = newToken();
    const line = commandLine(nonce, 'cat <<EOF\nx\nEOF\necho "$?"', { env: { DSH_A: "v'1", DSH_B: '' } });
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(line).not.toContain(MARK);
    expect(line).not.toContain(startMarker(nonce));
    expect(line).not.toContain(endPrefix(nonce));
    expect(line).toContain('export DSH_A=');
    expect(line).toContain('unset DSH_B');
  });

  it('uses fresh random tokens', () => {
    const tokens = new Set(Array.from({ length: 100 }, newToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{16}$/);
  });

  it('maps ^C and ^D to control keys and other input to one line', () => {
    expect(inputBytes('^C')).toBe('\x03');
    expect(inputBytes('^D')).toBe('\x04');
    expect(inputBytes('yes')).toBe('yes\n');
    expect(inputBytes('yes\n')).toBe('yes\n');
  });
});
