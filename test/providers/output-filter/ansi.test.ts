import { stripAnsi } from '../../../src/providers/output-filter/ansi.js';

describe('stripAnsi', () => {
  it.each([
    ['\x1b[31mred\x1b[0m', 'red'],
    ['\x9b1mbold', 'bold'],
    ['\x1b]0;title\x07after', 'after'],
    ['\x1b]8;;https://example.test\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['\x1bPq#0;2;0;0;0\x1b\\dcs', 'dcs'],
    ['\x1b(Bcharset', 'charset'],
    ['\x1b7\x1b8cursor', 'cursor'],
  ])('removes %j', (input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });

  it.each(['ok \x1b[3', 'ok \x1b', 'ok \x1b]0;tit', 'ok \x1bP'])('leaves a sequence cut short in place: %j', (input) => {
    expect(stripAnsi(input)).toBe(input);
  });
});
