// The one escaper for human-facing text: which characters, in which form.
import { escapeForDisplay, escapeJsonForDisplay, lineCount, quoteForDisplay } from '../../src/core/display-text.js';

describe('escapeForDisplay', () => {
  it.each([
    ['ESC (CSI, OSC)', '\x1b[2J\x1b]52;c;eA==\x07', '\\u001b[2J\\u001b]52;c;eA==\\u0007'],
    ['\\r, \\n, \\t, \\b, \\f', 'a\rb\nc\td\be\ff', 'a\\rb\\nc\\td\\be\\ff'],
    ['NUL and DEL', '\0x\x7f', '\\u0000x\\u007f'],
    ['C1 (a single-byte CSI)', '\u009b31m \u0085', '\\u009b31m \\u0085'],
    ['bidi marks, embeddings, overrides, isolates', '\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c', '\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u061c'],
    ['zero-width and BOM', '\u200b\u200d\ufeff', '\\u200b\\u200d\\ufeff'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['tag characters (astral, as a surrogate pair)', '\u{e0041}', '\\udb40\\udc41'],
    ['a lone surrogate', 'x\ud800y', 'x\\ud800y'],
  ])('escapes %s', (_what, raw, shown) => {
    expect(escapeForDisplay(raw)).toBe(shown);
  });

  it('keeps visible text, including non-Latin scripts, emoji and backslashes, unchanged', () => {
    const text = 'ls -la C:\\dir ünïcødé 日本語 עברית 😀 \\u001b';
    expect(escapeForDisplay(text)).toBe(text);
  });

  it('keeps \\n only when asked', () => {
    expect(escapeForDisplay('a\nb\r', { keepNewlines: true })).toBe('a\nb\\r');
  });
});

describe('quoteForDisplay and escapeJsonForDisplay', () => {
  it('quotes as a JSON literal that parses back to the exact text', () => {
    const text = 'ls` under x\n\x1b[8m\u202e"\\\u009b\u2028';
    const quoted = quoteForDisplay(text);
    expect(quoted).toBe('"ls` under x\\n\\u001b[8m\\u202e\\"\\\\\\u009b\\u2028"');
    expect(JSON.parse(quoted)).toBe(text);
  });

  it('escapes what JSON.stringify leaves raw, and the JSON keeps its value and layout', () => {
    const value = { a: 'x\u202ey\u009b', b: ['\u2028'] };
    const json = JSON.stringify(value, null, 2);
    const shown = escapeJsonForDisplay(json);
    expect(shown).not.toMatch(/[\u007f-\u009f\u202e\u2028]/);
    expect(shown.split('\n')).toHaveLength(json.split('\n').length);
    expect(JSON.parse(shown)).toEqual(value);
  });
});

test('lineCount counts lines as bash reads them', () => {
  expect([lineCount(''), lineCount('ls'), lineCount('a\nb'), lineCount('a\nb\n'), lineCount('a\r\u2028b'), lineCount(`a${'\n'.repeat(40)}b`)]).toEqual([
    1, 1, 2, 2, 1, 41,
  ]);
});
