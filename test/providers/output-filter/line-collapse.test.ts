import fc from 'fast-check';
import { stripAnsi } from '../../../src/providers/output-filter/ansi.js';
import { LineCollapser, collapseTerminalText } from '../../../src/providers/output-filter/line-collapse.js';
import { cutAt } from '../../support/chunks.js';

/** The whole-text meaning of the filter, written independently of the streaming code. */
function reference(raw: string): { text: string; dropped: number } {
  const lines = raw.split('\n');
  let dropped = 0;
  const out = lines.map((line) => {
    const drawings = line.split('\r').map((drawing) => stripAnsi(drawing));
    const visible = drawings.filter((drawing) => drawing.trim() !== '');
    dropped += Math.max(0, visible.length - 1);
    return visible.length > 0 ? visible[visible.length - 1]! : drawings[drawings.length - 1]!;
  });
  return { text: out.join('\n'), dropped };
}

function streamed(chunks: string[]): { text: string; dropped: number } {
  const collapser = new LineCollapser();
  let text = '';
  for (const chunk of chunks) text += collapser.push(chunk);
  text += collapser.end();
  return { text, dropped: collapser.collapsedUpdates };
}

const piece = fc.constantFrom('a', 'b', ' ', '\r', '\n', '\r\n', '42%', '\x1b[31m', '\x1b[0m', '\x1b]0;title\x07', '\x1b[2K');

describe('LineCollapser', () => {
  it('keeps only the final drawing of a redrawn line and counts the dropped ones', () => {
    expect(streamed(['10%\r50%\r100%\ndone\n'])).toEqual({ text: '100%\ndone\n', dropped: 2 });
  });

  it('removes ANSI/OSC sequences and turns CRLF into LF', () => {
    expect(collapseTerminalText('\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07next\r\r\n')).toBe('red\nnext\n');
  });

  it('does not count blank drawings (a cleared line) as updates', () => {
    expect(streamed(['50%\r\x1b[2K\r   \r100%\n'])).toEqual({ text: '100%\n', dropped: 1 });
  });

  it('agrees with the whole-text meaning however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), (pieces, cuts) => {
        const raw = pieces.join('');
        const chunks = cutAt(raw, cuts);
        expect(streamed(chunks)).toEqual(reference(raw));
      }),
    );
  });

  it('keeps the last real lines of 10,000 progress updates in one pending line', () => {
    const collapser = new LineCollapser();
    let out = collapser.push('start\n');
    for (let i = 0; i < 10_000; i++) out += collapser.push(`\rDownloading ${i / 100}%`);
    out += collapser.push('\nlast real line\n') + collapser.end();
    expect(out).toBe('start\nDownloading 99.99%\nlast real line\n');
    expect(collapser.collapsedUpdates).toBe(9_999);
  });

  it('a read shows the current drawing; a later redraw starts a new line, a continuation does not', () => {
    const collapser = new LineCollapser();
    expect(collapser.push('45%')).toBe('');
    expect(collapser.drain()).toBe('45%');
    expect(collapser.push('\r100%\n')).toBe('\n100%\n');
    expect(collapser.push('Name: ')).toBe('');
    expect(collapser.drain()).toBe('Name: ');
    expect(collapser.push('bob\r\n')).toBe('bob\n');
  });

  it('keeps an escape sequence cut at a read for the next read', () => {
    const collapser = new LineCollapser();
    collapser.push('ok \x1b[3');
    expect(collapser.drain()).toBe('ok ');
    expect(collapser.push('1mred\x1b[0m\n')).toBe('red\n');
  });

  it('passes a line longer than the pending bound through, then continues it', () => {
    const collapser = new LineCollapser();
    const long = 'x'.repeat(20_000);
    const out = collapser.push(long) + collapser.push('\r\n') + collapser.end();
    expect(out).toBe(`${long}\n`);
  });
});
