import { escapeForDisplay, lineCount, quoteForDisplay } from '../../../core/display-text.js';
import type { ApprovalFields } from './approval-service.js';

/** One fact of an approval question, ready to show: `value` is already escaped (free text JSON-quoted). */
export interface ApprovalFact {
  /** A stable key (`mode`, `command`, `workdir`, `justification`, `rule`, `tool`). */
  readonly name: string;
  readonly title: string;
  readonly value: string;
  /** What the value means, for front ends that show a field's description. */
  readonly description: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The mode line's value: what the command runs under if approved, stated first so nothing below can restate it. */
function modeValue(fields: ApprovalFields): string {
  if (fields.kind === 'escalation') {
    const wider = escapeForDisplay(String(fields.requestedMode ?? 'unknown'));
    const now = fields.sandboxMode === undefined ? '' : ` (wider than this session's ${escapeForDisplay(fields.sandboxMode)}; this call only)`;
    return `${wider}${now}`;
  }
  return fields.sandboxMode === undefined ? 'no sandbox mode' : escapeForDisplay(fields.sandboxMode);
}

/**
 * The facts of an approval in the order a person should read them: the mode
 * first, then the command (JSON-quoted, its line count in the title), the
 * directory, the model's justification or the rule that asked, the tool.
 * Every value is escaped, so no field can draw on the terminal, add lines or
 * reorder the text around it.
 */
export function approvalFacts(fields: ApprovalFields): ApprovalFact[] {
  const command = String(fields.command);
  const lines = lineCount(command);
  const facts: ApprovalFact[] = [
    {
      name: 'mode',
      title: 'Mode',
      value: modeValue(fields),
      description:
        fields.kind === 'escalation'
          ? 'The sandbox mode the command runs under if you accept.'
          : fields.sandboxMode === undefined
            ? "No sandbox mode applies: the command runs as the server's user, or in the session's container in a container composition."
            : 'The sandbox mode the command runs under.',
    },
    {
      name: 'command',
      title: `Command (${plural(lines, 'line')})`,
      value: quoteForDisplay(command),
      description: `The exact command, JSON-quoted: ${plural(lines, 'line')}, ${plural(command.length, 'character')}; control and bidi characters appear as \\u escapes.`,
    },
  ];
  facts.push(
    fields.workdir === undefined
      ? { name: 'workdir', title: 'Directory', value: "unknown (the shell's current directory)", description: 'An earlier command may have changed it.' }
      : { name: 'workdir', title: 'Directory', value: quoteForDisplay(fields.workdir), description: 'The directory it runs in.' },
  );
  if (fields.justification !== undefined) {
    facts.push({
      name: 'justification',
      title: 'Justification (from the model)',
      value: quoteForDisplay(fields.justification),
      description: 'Why the model asks for the wider mode, in its own words.',
    });
  }
  if (fields.rule !== undefined) {
    facts.push({ name: 'rule', title: 'Rule', value: quoteForDisplay(fields.rule), description: 'The command rule that asks for approval.' });
  }
  facts.push({ name: 'tool', title: 'Tool', value: escapeForDisplay(String(fields.tool)), description: 'The tool that would run it.' });
  return facts;
}

/**
 * The one text form of an approval question (elicitation message, audit
 * `reason`, any prompt): one `Title: value` line per fact, the mode on the
 * first line, then the question. A value never spans lines, so the command's
 * stated line count is its real one and nothing a field holds can appear
 * above the mode.
 */
export function describeApproval(fields: ApprovalFields): string {
  const question = fields.kind === 'escalation' ? 'Allow it to run once under this mode?' : 'Allow it to run?';
  return [...approvalFacts(fields).map((fact) => `${fact.title}: ${fact.value}`), question].join('\n');
}
