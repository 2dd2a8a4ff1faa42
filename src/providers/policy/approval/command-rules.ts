import { describeValue } from '../../../core/describe-value.js';
import { commandParts } from './command-parts.js';
import { baseName, commandText, type CommandAnalysis, type CommandWord } from './command-words.js';
import type { CommandAction, CommandRule } from './command-policy.js';

export const COMMAND_ACTIONS: readonly CommandAction[] = Object.freeze(['allow', 'ask', 'deny']);

const STRICTNESS: Record<CommandAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The outcome for a whole command line: its action and the rule (or `default`) that set it. */
interface RuleOutcome {
  readonly action: CommandAction;
  readonly rule: string;
  /** The simple command that decided it, as rules saw it (absent when an unknown construct decided). */
  readonly part?: string;
}

function ruleName(rule: CommandRule): string {
  if (rule.name !== undefined) return rule.name;
  return typeof rule.match === 'string' ? rule.match : String(rule.match);
}

/** `/…/flags` in a config file is a regular expression; anything else a prefix. */
function parseRuleMatch(match: string): string | RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(match);
  return literal ? new RegExp(literal[1]!, literal[2]) : match;
}

/** Checks and normalizes config rules (strings of the `/re/` form become RegExps). Throws `invalid approval config: …`. */
export function resolveRules(rules: unknown): readonly CommandRule[] {
  if (!Array.isArray(rules)) throw new Error(`invalid approval config: rules must be a list, got ${describeValue(rules)}`);
  return Object.freeze(
    rules.map((rule: unknown, index) => {
      const where = `invalid approval config: rules[${index}]`;
      const r = rule as Partial<CommandRule> | null;
      if (r === null || typeof r !== 'object') throw new Error(`${where} must be { match, action }, got ${describeValue(rule)}`);
      if (!COMMAND_ACTIONS.includes(r.action as CommandAction)) {
        throw new Error(`${where}.action must be allow, ask or deny, got ${describeValue(r.action)}`);
      }
      let match: string | RegExp;
      if (r.match instanceof RegExp) match = r.match;
      else if (typeof r.match === 'string' && r.match.trim() !== '') {
        try {
          match = parseRuleMatch(r.match.trim());
        } catch (error) {
          throw new Error(`${where}.match is not a valid regular expression: ${(error as Error).message}`);
        }
      } else throw new Error(`${where}.match must be a command prefix or /regex/, got ${describeValue(r.match)}`);
      if (r.name !== undefined && typeof r.name !== 'string') throw new Error(`${where}.name must be a string`);
      return Object.freeze({ match, action: r.action as CommandAction, ...(r.name === undefined ? {} : { name: r.name }) });
    }),
  );
}

function matches(rule: CommandRule, part: string): boolean {
  if (typeof rule.match !== 'string') {
    rule.match.lastIndex = 0;
    return rule.match.test(part);
  }
  const prefix = rule.match.trim().replace(/\s+/g, ' ');
  return part === prefix || part.startsWith(`${prefix} `);
}

/**
 * Judges a command line: every simple command bash would run for it (see
 * `commandParts`) gets the action of the first rule it matches, else
 * `fallback`; the line gets the strictest of those. Anything the checker
 * does not understand takes `unknownAction`. Without rules nothing needs
 * parsing: the fallback decides.
 */
export async function judgeCommand(line: string, rules: readonly CommandRule[], fallback: CommandAction): Promise<RuleOutcome> {
  if (rules.length === 0) return { action: fallback, rule: 'default' };
  return judgeAnalysis(await commandParts(line), rules, fallback);
}

function judgeAnalysis(analysis: CommandAnalysis, rules: readonly CommandRule[], fallback: CommandAction): RuleOutcome {
  let outcome: RuleOutcome | undefined;
  for (const words of analysis.commands) {
    const next = judgeWords(words, rules, fallback);
    if (outcome === undefined || STRICTNESS[next.action] > STRICTNESS[outcome.action]) outcome = next;
  }
  if (analysis.unknown.length > 0) {
    const action = unknownAction(rules, fallback);
    const more = analysis.unknown.length > 1 ? ` (and ${analysis.unknown.length - 1} more)` : '';
    // On a tie the unknown construct is named rather than the default, so the refusal says what was not understood.
    if (outcome === undefined || STRICTNESS[action] > STRICTNESS[outcome.action] || (action === outcome.action && outcome.rule === 'default')) {
      outcome = { action, rule: `not understood: ${analysis.unknown[0]}${more}` };
    }
  }
  return outcome ?? { action: fallback, rule: 'default' };
}

/**
 * What a line the checker does not fully understand gets. With an allow-list
 * (`defaultAction` ask or deny) that default; with `defaultAction: allow` and
 * any ask or deny rule, `ask`, because a deny rule cannot be trusted on text
 * it cannot see; only with nothing but allow rules and an allow default is it
 * allowed, as everything else is.
 */
export function unknownAction(rules: readonly CommandRule[], fallback: CommandAction): CommandAction {
  if (fallback !== 'allow') return fallback;
  return rules.some((rule) => rule.action !== 'allow') ? 'ask' : 'allow';
}

/** One simple command; a name written as a path (`/bin/rm`) is also tried by its base name, which can only make it stricter. */
function judgeWords(words: readonly CommandWord[], rules: readonly CommandRule[], fallback: CommandAction): RuleOutcome {
  const part = commandText(words);
  const rule = rules.find((candidate) => matches(candidate, part));
  const outcome: RuleOutcome = { action: rule?.action ?? fallback, rule: rule ? ruleName(rule) : 'default', part };
  const name = words[0]?.literal;
  if (name === undefined || !name.includes('/')) return outcome;
  const byBase = commandText([{ ...words[0]!, literal: baseName(name) }, ...words.slice(1)]);
  const baseRule = rules.find((candidate) => matches(candidate, byBase));
  if (baseRule && STRICTNESS[baseRule.action] > STRICTNESS[outcome.action]) return { action: baseRule.action, rule: ruleName(baseRule), part };
  return outcome;
}
