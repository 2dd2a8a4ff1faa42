import fc from 'fast-check';
import { PatternRedactor } from '../../../src/providers/output-filter/pattern-redactor.js';
import { resolveRedactionConfig } from '../../../src/providers/output-filter/redaction-config.js';
import type { Redactor } from '../../../src/providers/output-filter/redactor.js';
import { cutAt } from '../../support/chunks.js';

const SECRETS = ['hunter2-correct', 'sk-live-0123456789abcdef', 'pass phrase with spaces'];

function redactor(values: string[] = SECRETS, env: NodeJS.ProcessEnv = {}): Redactor {
  return new PatternRedactor(resolveRedactionConfig({ values }), env);
}

function streamAll(r: Redactor, chunks: string[], drainAfter: ReadonlySet<number> = new Set()): string {
  const stream = r.stream();
  let out = '';
  chunks.forEach((chunk, i) => {
    out += stream.push(chunk);
    if (drainAfter.has(i)) out += stream.drain();
  });
  return out + stream.end();
}

describe('redaction stream', () => {
  it('catches a secret split at every point between two chunks', () => {
    const r = redactor();
    for (const secret of SECRETS) {
      const text = `before ${secret} after\n`;
      for (let split = 0; split <= text.length; split++) {
        const out = streamAll(r, [text.slice(0, split), text.slice(split)]);
        expect(out).toBe('before [redacted] after\n');
      }
    }
  });

  it('catches a secret split at every point even when a read drains in between', () => {
    const r = redactor();
    const secret = SECRETS[1]!;
    const text = `key=${secret}\n`;
    for (let split = 0; split <= text.length; split++) {
      const out = streamAll(r, [text.slice(0, split), text.slice(split)], new Set([0]));
      expect(out).not.toContain(secret);
      expect(out).toContain('[redacted]');
    }
  });

  it('holds back only what could begin a secret (a prompt is shown at once)', () => {
    const stream = redactor().stream();
    expect(stream.push('Password: ')).toBe('Password: ');
    expect(stream.push('hunter')).toBe('');
    expect(stream.drain()).toBe('');
    expect(stream.push('2-correct!') + stream.end()).toBe('[redacted]!');
  });

  it('never lets a configured secret through, whatever the chunking and reads', () => {
    const r = redactor();
    const word = fc.constantFrom(...SECRETS, 'a', ' ', '\n', 'hunter', 'sk-live-', 'pass ', '-');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 10 }), fc.array(fc.nat()), (words, cuts, drains) => {
        const text = words.join('');
        const chunks = cutAt(text, cuts);
        const plain = streamAll(r, chunks);
        expect(plain).toBe(r.redact(text));
        const withReads = streamAll(r, chunks, new Set(drains.map((d) => d % chunks.length)));
        for (const secret of SECRETS) expect(withReads).not.toContain(secret);
      }),
    );
  });

  it('names the variable for an environment secret; values shorter than 6 characters stay', () => {
    const r = redactor(['12345'], { GITHUB_TOKEN: 'tok-abcdef-123', SHORT_KEY: 'abc12', HOME: '/root' });
    expect(r.redact('t=tok-abcdef-123 s=abc12 n=12345 h=/root')).toBe('t=[redacted:GITHUB_TOKEN] s=abc12 n=12345 h=/root');
  });

  it('redacts the longer of two overlapping secrets', () => {
    const r = redactor(['abcdef', 'abcdefghij']);
    expect(r.redact('abcdefghij abcdef')).toBe('[redacted] [redacted]');
  });
});
