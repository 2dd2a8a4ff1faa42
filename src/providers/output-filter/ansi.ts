/**
 * Terminal control sequences, so PTY output can be shown as plain text:
 * OSC strings (window titles, hyperlinks; ended by BEL or ST), DCS/SOS/PM/APC
 * strings, CSI sequences (7-bit `ESC [` and 8-bit `0x9b`: colours, cursor
 * moves, erase), and the remaining two- and three-byte escapes (charset
 * selection, keypad modes, save/restore cursor). A sequence cut short (at the
 * end of a chunk) is left in place, so a streaming caller can hold it back.
 */
const CONTROL_SEQUENCE = new RegExp(
  [
    '\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)',
    '\\u001b[PX^_][^\\u001b]*\\u001b\\\\',
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]',
    // Not `[`, `]`, `P`, `X`, `^`, `_`: those open a longer sequence, which stays whole until it is complete.
    '\\u001b[ -/]*[0-OQ-WYZ\\\\`a-~]',
  ].join('|'),
  'g',
);

/** `text` without terminal control sequences. Written here (not a dependency) so the CommonJS build needs no ESM-only module. */
export function stripAnsi(text: string): string {
  return text.replace(CONTROL_SEQUENCE, '');
}
