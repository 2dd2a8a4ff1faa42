import { escapeForDisplay } from '../core/display-text.js';
import type { CallPresentation, ResultPresentation } from '../core/tool-contract.js';

/** One line of a card: the tool's (or the model's) text can neither drive the terminal nor start a new line. */
const line = (text: string): string => escapeForDisplay(text);

/**
 * `▸ <title> — <description>` and the command under it; nothing when the tool
 * draws no card. Every field is escaped (`src/core/display-text.ts`): OSC
 * clipboard writes, cursor moves, `\r` overwrites and bidi overrides show as
 * `\u001b`-style escapes. A multi-line command keeps its line breaks, each
 * further line indented under the `$`, so its real length is visible.
 */
export function callCard(card: CallPresentation | undefined): string {
  if (!card) return '';
  const about = card.description !== undefined && card.description !== card.title ? ` — ${line(card.description)}` : '';
  const lines = [`▸ ${line(card.title)}${about}`];
  if (card.command !== undefined) lines.push(`  $ ${escapeForDisplay(card.command, { keepNewlines: true }).split('\n').join('\n    ')}`);
  if (card.cwd !== undefined) lines.push(`  in ${line(card.cwd)}`);
  return `${lines.join('\n')}\n`;
}

/** `◂ <outcome>`: timed out, killed by a signal, the exit code, or an error. */
export function resultCard(card: ResultPresentation | undefined): string {
  if (!card) return '';
  const outcome = card.timedOut
    ? 'timed out'
    : card.signal !== undefined
      ? `killed by ${line(card.signal)}`
      : card.exitCode !== undefined
        ? `exit code ${card.exitCode}`
        : card.isError
          ? 'error'
          : 'done';
  return `◂ ${outcome}\n`;
}
