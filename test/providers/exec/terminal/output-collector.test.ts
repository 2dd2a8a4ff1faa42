import { OutputCollector, normalizeTerminalText } from '../../../../src/providers/exec/terminal/output-collector.js';

describe('OutputCollector', () => {
  it('strips ANSI/OSC sequences and normalizes CRLF', () => {
    expect(normalizeTerminalText('\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07next\r\r\n')).toBe('red\nnext\n');
  });

  it('keeps the beginning up to the cap and counts the rest', () => {
    const collector = new OutputCollector(10);
    collector.append('0123456');
    collector.append('789abcdef');
    collector.append('\x1b[1mXY\x1b[0m');
    expect(collector.take()).toEqual({ output: '0123456789', droppedChars: 8, collapsedUpdates: 0 });
  });

  it('keeps everything under the cap', () => {
    const collector = new OutputCollector(100);
    collector.append('a\r\n');
    collector.append('b');
    expect(collector.take()).toEqual({ output: 'a\nb', droppedChars: 0, collapsedUpdates: 0 });
  });
});
