// The real command policy under the two postures the security suites use,
// with an approval service that records what it is asked and rejects it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApprovalAsk, ApprovalService } from '../../../src/providers/policy/approval/approval-service.js';
import type { CommandRule } from '../../../src/providers/policy/approval/command-policy.js';
import { LocalCommandPolicy } from '../../../src/providers/policy/approval/local-command-policy.js';

/** `allow: echo`, default deny: the allow-list of issue 18 row 10. */
export const ALLOW_ECHO = { rules: [{ match: 'echo', action: 'allow' }] as CommandRule[], defaultAction: 'deny' as const };
/** `deny: rm`, default allow: a deny-list. */
export const DENY_RM = { rules: [{ match: 'rm', action: 'deny' }] as CommandRule[], defaultAction: 'allow' as const };

export type Verdict = 'allow' | 'deny' | 'unknown deny' | 'unknown ask';

/** Runs `command` through a fresh LocalCommandPolicy; says what happened in the table's words. */
export async function verdictOf(config: typeof ALLOW_ECHO | typeof DENY_RM, command: string): Promise<{ verdict: string; detail: string }> {
  const asked: ApprovalAsk[] = [];
  const approval: ApprovalService = {
    request: async (request) => (asked.push(request), 'rejected'),
    setPolicy: () => undefined,
    audit: () => [],
  };
  const policy = new LocalCommandPolicy(config, approval);
  const result = await policy.check({ tool: 'bash', command, callId: 'c1' });
  if (result.allowed) return { verdict: asked.length > 0 ? 'ask then allow' : 'allow', detail: '' };
  if (asked.length > 0) {
    const rule = asked[0]!.rule ?? '';
    return { verdict: rule.startsWith('not understood: ') ? 'unknown ask' : 'ask', detail: rule };
  }
  const denied = /^command denied by policy: (.*)$/s.exec(result.message);
  if (!denied) return { verdict: `refused: ${result.message}`, detail: result.message };
  return { verdict: denied[1]!.startsWith('not understood: ') ? 'unknown deny' : 'deny', detail: result.message };
}

export interface ConstructRow {
  readonly construct: string;
  readonly example: string;
  readonly allowEcho: string;
  readonly denyRm: string;
}

/** The construct table of docs/security/command-rules.md, examples unquoted (`⏎` newline, `␍` carriage return, `␕` U+0015, `\|` a bar). */
export function constructTable(): ConstructRow[] {
  const doc = readFileSync(path.join(repoRoot(), 'docs/security/command-rules.md'), 'utf8');
  const lines = doc.slice(doc.indexOf('### Construct table')).split('\n');
  const start = lines.findIndex((line) => line.startsWith('| construct '));
  const table: ConstructRow[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
    if (cells.length !== 4) throw new Error(`construct table row has ${cells.length} cells: ${line}`);
    const [construct, example, allowEcho, denyRm] = cells as [string, string, string, string];
    table.push({ construct, example: unquote(example), allowEcho, denyRm });
  }
  return table;
}

function unquote(cell: string): string {
  const code = /^``\s?([\s\S]*?)\s?``$/.exec(cell) ?? /^`([\s\S]*)`$/.exec(cell);
  if (!code) throw new Error(`construct table example is not code: ${cell}`);
  return code[1]!.replace(/⏎/g, '\n').replace(/␍/g, '\r').replace(/␕/g, '\x15');
}

function repoRoot(): string {
  return path.resolve(process.cwd());
}
