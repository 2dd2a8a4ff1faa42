import fc from 'fast-check';
import { PatternRedactor } from '../../../src/providers/output-filter/pattern-redactor.js';
import { resolveRedactionConfig } from '../../../src/providers/output-filter/redaction-config.js';
import type { RedactionConfig, Redactor } from '../../../src/providers/output-filter/redactor.js';
import { TextFilter } from '../../../src/providers/output-filter/text-filter.js';
import { cutAt } from '../../support/chunks.js';

const SECRETS = ['hunter2-correct', 'sk-live-0123456789abcdef'];
const redactorOf = (config: Partial<RedactionConfig>): Redactor => new PatternRedactor(resolveRedactionConfig(config), {});
const REDACTORS: Record<string, Redactor | undefined> = {
  none: undefined,
  builtins: redactorOf({ values: SECRETS }),
  literals: redactorOf({ values: SECRETS, builtins: false }),
  'user pattern': redactorOf({ patterns: ['tok-[0-9]+'] }),
};

interface Run {
  redacted: string;
  clean: string;
  collapsed: number;
  fast: number;
}

/** The reference: every chunk decoded and pushed as text. */
function viaText(redactor: Redactor | undefined, chunks: string[], drains: ReadonlySet<number>): Run {
  const filter = new TextFilter(redactor);
  let redacted = '';
  let clean = '';
  const take = (step: { redacted: string; clean: string }): void => {
    redacted += step.redacted;
    clean += step.clean;
  };
  chunks.forEach((chunk, i) => {
    take(filter.push(chunk));
    if (drains.has(i)) take(filter.drain());
  });
  take(filter.end());
  return { redacted, clean, collapsed: filter.collapsedUpdates, fast: 0 };
}

/** As `OutputCapture` does: `pushAscii` first, decode and push when it declines. */
function viaBytes(redactor: Redactor | undefined, chunks: string[], drains: ReadonlySet<number>): Run {
  const filter = new TextFilter(redactor);
  let redacted = '';
  let clean = '';
  let fast = 0;
  const take = (step: { redacted: string; clean: string }): void => {
    redacted += step.redacted;
    clean += step.clean;
  };
  chunks.forEach((chunk, i) => {
    const bytes = Buffer.from(chunk, 'latin1');
    const step = filter.pushAscii(bytes);
    if (step === undefined) {
      take(filter.push(chunk));
    } else {
      fast++;
      redacted += step.redacted.text + step.redacted.bytes.toString('latin1');
      clean += step.clean.text + step.clean.bytes.toString('latin1');
    }
    if (drains.has(i)) take(filter.drain());
  });
  take(filter.end());
  return { redacted, clean, collapsed: filter.collapsedUpdates, fast };
}

/** Non-empty chunks only: an empty write is not a chunk a stream delivers. */
const split = (text: string, cuts: number[]): string[] => cutAt(text, cuts).filter((chunk) => chunk !== '');

const filler = (n: number): string => 'warning: value 42 is never read\n'.repeat(n);
const TOKENS = [
  'x'.repeat(3000),
  filler(120),
  'plain line\n',
  '\n',
  '\r',
  '\r\n',
  '\x1b[31m',
  '\x1b',
  '50%\r',
  '   \r',
  ...SECRETS,
  'hunter',
  'sk-live-01',
  'ghp_' + 'A1b2'.repeat(8),
  'gh',
  'xoxb-0123456789abc',
  'xo',
  'https://user:pa55@host/',
  '://',
  'AKIAABCDEFGHIJKLMNOP',
  'AKI',
  'Authorization: Bearer abc.def',
  'Authoriz',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\n',
  '-----BEGIN',
  'tok-123 ',
];

describe('ASCII fast path of the output filters', () => {
  it('gives exactly what decoding and pushing gives, for any chunking, drains included', () => {
    for (const redactor of Object.values(REDACTORS)) {
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          fc.array(fc.nat({ max: 12 }), { maxLength: 3 }),
          (tokens, cuts, drainAt) => {
            const chunks = split(tokens.join(''), cuts);
            const drains = new Set(drainAt);
            const fast = viaBytes(redactor, chunks, drains);
            expect({ ...fast, fast: 0 }).toEqual(viaText(redactor, chunks, drains));
          },
        ),
        { numRuns: 150 },
      );
    }
  });

  it('gives the same when large chunks are cut next to secrets, partial leads and line ends', () => {
    const big = ['x'.repeat(9000), filler(300)];
    for (const redactor of [REDACTORS['builtins'], REDACTORS['literals']]) {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...big), fc.array(fc.constantFrom(...TOKENS), { maxLength: 3 })), { maxLength: 6 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: -4, max: 4 })), { maxLength: 8 }),
          (parts, cuts) => {
            const pieces = parts.flatMap(([filling, tokens]) => [filling, ...tokens]);
            const ends: number[] = [];
            let at = 0;
            for (const piece of pieces) ends.push((at += piece.length));
            const points = cuts.map(([i, offset]) => Math.max(0, (ends[i % Math.max(1, ends.length)] ?? 0) + offset));
            const chunks = split(pieces.join(''), points);
            const fast = viaBytes(redactor, chunks, new Set());
            expect({ ...fast, fast: 0 }).toEqual(viaText(redactor, chunks, new Set()));
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  it('catches a secret split at every point between two chunks', () => {
    const redactor = REDACTORS['literals'];
    for (const secret of SECRETS) {
      const text = `${'a'.repeat(40)} ${secret} after\n${'b'.repeat(40)}`;
      for (let at = 0; at <= text.length; at++) {
        const run = viaBytes(redactor, [text.slice(0, at), text.slice(at)], new Set());
        expect(run.redacted).toBe(`${'a'.repeat(40)} [redacted] after\n${'b'.repeat(40)}`);
      }
    }
  });

  it('catches a built-in token split at every point between two large chunks', () => {
    const token = 'ghp_' + 'A1b2'.repeat(8);
    const text = `${filler(400)}token ${token} end\n${filler(400)}`;
    const from = text.indexOf(token);
    for (let at = from - 2; at <= from + token.length + 2; at++) {
      const run = viaBytes(REDACTORS['builtins'], [text.slice(0, at), text.slice(at)], new Set());
      expect(run.redacted).toBe(`${filler(400)}token [redacted] end\n${filler(400)}`);
      expect(run.clean).toBe(run.redacted);
    }
  });

  it('keeps line ends in held text: a URL lead held across a newline, then a redraw', () => {
    const chunks = [`${filler(300)}see ://\nnext`, 'x'.repeat(9000), '\rdone\n'];
    const run = viaBytes(REDACTORS['builtins'], chunks, new Set());
    expect(run.fast).toBe(3);
    expect({ ...run, fast: 0 }).toEqual(viaText(REDACTORS['builtins'], chunks, new Set()));
  });

  it('passes large plain chunks as bytes, with or without redaction', () => {
    for (const redactor of [REDACTORS['none'], REDACTORS['builtins'], REDACTORS['literals']]) {
      const chunks = [filler(500), 'x'.repeat(20_000), filler(500)];
      const run = viaBytes(redactor, chunks, new Set());
      expect(run.fast).toBe(3);
      expect(run.redacted).toBe(chunks.join(''));
    }
  });

  it('passes small chunks too (a pipe writer of 8 KiB blocks), a held lead growing across them', () => {
    const chunks = [...Array.from({ length: 30 }, () => 'x'.repeat(8192)), `${filler(3)}url ://host`, '/path', ' ok\n'];
    const run = viaBytes(REDACTORS['builtins'], chunks, new Set());
    expect(run.fast).toBe(chunks.length);
    expect(run.redacted).toBe(chunks.join(''));
    expect({ ...run, fast: 0 }).toEqual(viaText(REDACTORS['builtins'], chunks, new Set()));
  });

  it('declines (leaving the stream as it was) for user patterns and for chunks with a possible match', () => {
    expect(new TextFilter(REDACTORS['user pattern']).pushAscii(Buffer.from(filler(500)))).toBeUndefined();
    const filter = new TextFilter(REDACTORS['builtins']);
    const chunk = `${filler(500)}ghp_`;
    expect(filter.pushAscii(Buffer.from(chunk))).toBeUndefined();
    const shown = filter.push(chunk).redacted + filter.push(`${'A1b2'.repeat(8)}\n`).redacted + filter.end().redacted;
    expect(shown).toBe(`${filler(500)}[redacted]\n`);
  });
});
