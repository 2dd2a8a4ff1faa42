import { describeValue } from '../../core/describe-value.js';
import { commandParts } from './command-parts.js';
import type { CommandAction, CommandRule } from './command-policy.js';

export const COMMAND_ACTIONS: readonly CommandAction[] = Object.freeze(['allow', 'ask', 'deny']);

const STRICTNESS: Record<CommandAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The outcome for a whole command line: its action and the rule (or `default`) that set it. */
export interface RuleOutcome {
  readonly action: CommandAction;
  readonly rule: string;
  /** The simple command that decided it (absent when the line could not be parsed). */
  readonly part?: string;
}

export function ruleName(rule: CommandRule): string {
  if (rule.name !== undefined) return rule.name;
  return typeof rule.match === 'string' ? rule.match : String(rule.match);
}

/** `/…/flags` in a config file is a regular expression; anything else a prefix. */
export function parseRuleMatch(match: string): string | RegExp {
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
 * Judges a command line: every simple command in it (see `commandParts`) gets
 * the action of the first rule it matches, else `fallback`; the line gets the
 * strictest of those. A line that cannot be parsed gets the strictest action
 * any rule or the fallback could give.
 */
export function judgeCommand(line: string, rules: readonly CommandRule[], fallback: CommandAction): RuleOutcome {
  const parts = commandParts(line);
  if (parts === undefined) {
    const strictest = [fallback, ...rules.map((rule) => rule.action)].reduce(stricter);
    return { action: strictest, rule: 'unparseable command' };
  }
  let outcome: RuleOutcome = { action: 'allow', rule: 'default' };
  let first = true;
  for (const part of parts.length > 0 ? parts : ['']) {
    const rule = rules.find((candidate) => matches(candidate, part));
    const next: RuleOutcome = { action: rule?.action ?? fallback, rule: rule ? ruleName(rule) : 'default', part };
    if (first || STRICTNESS[next.action] > STRICTNESS[outcome.action]) outcome = next;
    first = false;
  }
  return outcome;
}

function stricter(a: CommandAction, b: CommandAction): CommandAction {
  return STRICTNESS[b] > STRICTNESS[a] ? b : a;
}
