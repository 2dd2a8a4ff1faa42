/**
 * Escape sequences built to survive a stripper: strings a CSI splits, 8-bit
 * C1 forms, unterminated strings, nested and cancelled sequences (issue 33
 * item 5). Every one must leave nothing a terminal acts on.
 */
export const HOSTILE_ESCAPES: readonly string[] = [
  '\x1b]52;c;ZWNo\x1b[31mbyBwd25lZA==\x07',
  '\x1b]52;c;ZWNo\x1b[31mbyBwd25lZA==\x1b\\',
  '\x1b]5\x1b[0m2;c;aGk=\x07',
  '\x1b\x1b[0m]52;c;aGk=\x07',
  '\x1b[\x1b]52;c;aGk=\x07',
  '\x9d52;c;aGk=\x9c',
  '\x9d0;title\x07',
  '\x90q#0;2\x9c',
  '\x98sos\x9c\x9epm\x9c\x9fapc\x9c',
  '\x9b31mred\x9b0m',
  '\x1bPq#0;2;0;0;0',
  '\x1b]0;unterminated title',
  '\x1b]8;;https://evil.test\x07link',
  '\x1b_apc\x1b\x1b\\',
  '\x1bP\x1b]52;c;aGk=\x07\x1b\\',
  '\x1b]52;c;\naGk=\x07',
  '\x1b]52;c;aGk=\x18\x1b[2J',
  '\x1b[?1049h\x1b[2J\x1b[H',
  '\x1b#8\x1b(0\x1b)B',
  '\x1b[31;\x1b]52;c;aGk=\x07m',
];
