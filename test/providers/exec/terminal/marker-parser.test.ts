import fc from 'fast-check';
import { MarkerParser } from '../../../../src/providers/exec/terminal/marker-parser.js';
import { beginMarker, endPrefix, promptPrefix, startMarker } from '../../../../src/providers/exec/terminal/marker-protocol.js';
import { cutAt } from '../../../support/chunks.js';

const NONCE = '0123456789abcdef';
const SECRET = 'fedcba9876543210';
const END = (code: number) => `${endPrefix(NONCE)}${code}\x1f`;
const PROMPT = (code: number, seen = NONCE) => `${promptPrefix(SECRET)}${seen}:${code}\x1f`;
const BEGIN = beginMarker(SECRET);

/** Feeds `stream` in the given chunks; returns the released output and the end. */
function feed(chunks: string[]) {
  const parser = new MarkerParser(NONCE, SECRET);
  let output = '';
  let end: ReturnType<MarkerParser['push']>['end'];
  for (const chunk of chunks) {
    const step = parser.push(chunk);
    if (step.discardEarlier) output = '';
    output += step.output;
    if (step.end) {
      expect(end).toBeUndefined();
      end = step.end;
    }
  }
  return { output, end, parser };
}

// Pieces that look like markers: other nonces, our prefixes without a terminator, stray separators.
const lookalikes = fc.constantFrom(
  '\x1f',
  '\x1fE',
  endPrefix('ffffffffffffffff'),
  `${endPrefix('ffffffffffffffff')}0\x1f`,
  `${promptPrefix('0000000000000000')}${NONCE}:1\x1f`,
  `${promptPrefix(SECRET)}${NONCE}1\x1f`,
  `${promptPrefix(SECRET)}zz:1\x1f`,
  BEGIN,
  endPrefix(NONCE),
  `${endPrefix(NONCE)}x`,
  `${endPrefix(NONCE)}1234\x1f`,
  promptPrefix(SECRET),
  `${promptPrefix(SECRET)}\x1f`,
  startMarker(NONCE),
  'E',
  ':',
  '7',
  '\r\n',
  'plain text',
);
const outputText = fc
  .array(fc.oneof(fc.string({ maxLength: 8 }), lookalikes), { maxLength: 12 })
  .map((parts) => parts.join(''));

/** Where the first real marker of this call starts in `stream` (-1 when none). */
const firstMarker = (stream: string) =>
  stream.search(/\x1f(E0123456789abcdef:|Pfedcba9876543210:[0-9a-f]{0,16}:)\d{1,3}\x1f/);

/** What a result shows of `output`: marker-shaped bytes that are not this call's markers are frame bytes, never output. */
const withoutFrameBytes = (output: string) => output.replace(/\x1f[SEBPR][0-9a-f:]{0,40}\x1f/g, '');

describe('MarkerParser', () => {
  it('releases exactly the text between the markers under any chunking', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }).filter((s) => !s.includes(startMarker(NONCE))),
        outputText,
        fc.integer({ min: 0, max: 255 }),
        fc.boolean(),
        fc.string({ maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (junk, output, code, viaPrompt, trailing, points) => {
          const marker = viaPrompt ? PROMPT(code) : END(code);
          // Output that forms a real marker with what follows would (correctly) end the command there.
          fc.pre(firstMarker(output + marker) === output.length);
          const stream = junk + startMarker(NONCE) + output + marker + trailing;
          const result = feed(cutAt(stream, points));
          expect(result.output).toBe(withoutFrameBytes(output));
          expect(result.end).toEqual({ exitCode: code, via: viaPrompt ? 'prompt' : 'end' });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('ignores everything before the start marker, including stale markers of earlier calls', () => {
    const result = feed([`echo typed\r\n${END(0)}${PROMPT(0)}`, startMarker(NONCE), 'hi\r\n', END(3)]);
    expect(result.output).toBe('hi\r\n');
    expect(result.end).toEqual({ exitCode: 3, via: 'end' });
  });

  it('holds back a marker split byte by byte and releases nothing of it', () => {
    const stream = `${startMarker(NONCE)}abc${END(42)}`;
    const result = feed([...stream]);
    expect(result.output).toBe('abc');
    expect(result.end).toEqual({ exitCode: 42, via: 'end' });
  });

  it('does not end on an imitation, and drops its frame bytes', () => {
    const fake = `${endPrefix('aaaaaaaaaaaaaaaa')}0\x1f`;
    const result = feed([startMarker(NONCE), fake, 'more']);
    expect(result.end).toBeUndefined();
    expect(result.output).toBe('more');
    expect(result.parser.started).toBe(true);
  });

  it('drops markers a shadowed printf rewrote (another nonce, none, doubled), split anywhere, and keeps other separators', () => {
    const rewritten = `${startMarker('0123456789abcdee')}X\x1fS\x1fnext-ok\r\n${endPrefix('0123456789abcdee')}0\x1f\x1fa\x1f`;
    for (let cut = 0; cut <= rewritten.length; cut++) {
      const result = feed([startMarker(NONCE), rewritten.slice(0, cut), rewritten.slice(cut), END(0)]);
      expect(result.output).toBe('Xnext-ok\r\n\x1fa\x1f');
      expect(result.end).toEqual({ exitCode: 0, via: 'end' });
    }
  });

  it('a frame-shaped tail whose closing byte opens the real end marker leaves that marker whole', () => {
    const result = feed([startMarker(NONCE), `x\x1fS12${END(6)}`]);
    expect(result.output).toBe('x\x1fS12');
    expect(result.end).toEqual({ exitCode: 6, via: 'end' });
  });

  it('starts on the begin marker (PS0) when the start marker never comes, and ends on the prompt carrying this nonce', () => {
    const result = feed([`junk${BEGIN}out`, 'put\r\n', PROMPT(4)]);
    expect(result.output).toBe('output\r\n');
    expect(result.end).toEqual({ exitCode: 4, via: 'prompt' });
  });

  it('drops the frame noise between the begin and the start marker', () => {
    const result = feed([`${BEGIN}+ eval noise\r\n`, `more noise${startMarker(NONCE)}real`, END(0)]);
    expect(result.output).toBe('real');
    const parser = new MarkerParser(NONCE, SECRET);
    expect(parser.push(`${BEGIN}+ trace\r\n`)).toEqual({ output: '+ trace\r\n' });
    expect(parser.push(`x${startMarker(NONCE)}real`)).toEqual({ output: 'real', discardEarlier: true });
    expect(parser.push(END(0)).end).toEqual({ exitCode: 0, via: 'end' });
  });

  it('reports a prompt that carries another call\'s nonce (or none) as a lost frame', () => {
    for (const seen of ['', 'aaaaaaaaaaaaaaaa']) {
      const result = feed([BEGIN, PROMPT(0, seen)]);
      expect(result.end).toEqual({ via: 'lost' });
    }
  });

  it('ignores data after the end', () => {
    const parser = new MarkerParser(NONCE, SECRET);
    parser.push(`${startMarker(NONCE)}x${END(0)}`);
    expect(parser.done).toBe(true);
    expect(parser.push('late')).toEqual({ output: '' });
  });
});
