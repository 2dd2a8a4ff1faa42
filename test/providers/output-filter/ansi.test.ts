import fc from 'fast-check';
import { scanEscapes, stripAnsi } from '../../../src/providers/output-filter/ansi.js';
import { LineCollapser } from '../../../src/providers/output-filter/line-collapse.js';
import { HOSTILE_ESCAPES } from '../../support/hostile-escapes.js';

/** Nothing a terminal could act on: no ESC, no C1 control. */
const INERT = /^[^\u001b\u0080-\u009f]*$/;

describe('stripAnsi', () => {
  it.each([
    ['\x1b[31mred\x1b[0m', 'red'],
    ['\x9b1mbold', 'bold'],
    ['\x1b]0;title\x07after', 'after'],
    ['\x1b]8;;https://example.test\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['\x1bPq#0;2;0;0;0\x1b\\dcs', 'dcs'],
    ['\x1b(Bcharset', 'charset'],
    ['\x1b7\x1b8cursor', 'cursor'],
    ['plain ü — 日本 \t text', 'plain ü — 日本 \t text'],
  ])('removes %j', (input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });

  it.each(HOSTILE_ESCAPES)('leaves nothing a terminal acts on of %j', (input) => {
    const out = stripAnsi(input);
    expect(out).toMatch(INERT);
    // Stripping again changes nothing: no sequence was assembled from the pieces.
    expect(stripAnsi(out)).toBe(out);
  });

  it('an OSC 52 with a CSI inside does not become a clipboard write once the CSI is gone', () => {
    expect(stripAnsi('\x1b]52;c;ZWNo\x1b[31mbyBwd25lZA==\x07')).toBe('byBwd25lZA==\x07');
  });

  it.each(['ok \x1b[3', 'ok \x1b', 'ok \x1b]0;tit', 'ok \x1bP', 'ok \x9d52;c;', 'ok \x90q', 'ok \x1b]0;t\x1b'])(
    'removes a sequence cut short, and says where it starts: %j',
    (input) => {
      expect(stripAnsi(input)).toBe('ok ');
      expect(scanEscapes(input).unfinishedAt).toBe(3);
    },
  );

  it('never leaves ESC or C1 in any mix of hostile pieces and text', () => {
    const piece = fc.oneof(
      fc.constantFrom(...HOSTILE_ESCAPES, '\x1b', '\x1b[', '\x1b]', '\x9d', '\x9c', '\x07', '\x1b\\', '52;c;', 'text'),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const out = stripAnsi(parts.join(''));
        expect(out).toMatch(INERT);
        expect(stripAnsi(out)).toBe(out);
      }),
      { numRuns: 2000 },
    );
  });

  it('streamed through the line collapser in any chunks and drained between them, no piece of a sequence gets out', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HOSTILE_ESCAPES), fc.array(fc.nat(), { maxLength: 6 }), (input, cuts) => {
        const collapser = new LineCollapser();
        const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        let out = '';
        let from = 0;
        for (const point of [...points, input.length]) {
          out += collapser.push(input.slice(from, point)) + collapser.drain();
          from = point;
        }
        out += collapser.end();
        expect(out).toMatch(INERT);
      }),
      { numRuns: 1000 },
    );
  });
});
