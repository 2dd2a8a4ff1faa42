import type { CallPresentation, ResultPresentation } from '../core/tool-contract.js';

/** `▸ <title> — <description>` and the command under it; nothing when the tool draws no card. */
export function callCard(card: CallPresentation | undefined): string {
  if (!card) return '';
  const about = card.description !== undefined && card.description !== card.title ? ` — ${card.description}` : '';
  const lines = [`▸ ${card.title}${about}`];
  if (card.command !== undefined) lines.push(`  $ ${card.command.split('\n').join('\n    ')}`);
  if (card.cwd !== undefined) lines.push(`  in ${card.cwd}`);
  return `${lines.join('\n')}\n`;
}

/** `◂ <outcome>`: timed out, killed by a signal, the exit code, or an error. */
export function resultCard(card: ResultPresentation | undefined): string {
  if (!card) return '';
  const outcome = card.timedOut
    ? 'timed out'
    : card.signal !== undefined
      ? `killed by ${card.signal}`
      : card.exitCode !== undefined
        ? `exit code ${card.exitCode}`
        : card.isError
          ? 'error'
          : 'done';
  return `◂ ${outcome}\n`;
}
