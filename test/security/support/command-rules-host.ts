// A real host (localEnvironment: real bash, one-shot or persistent) with
// command rules, in a workspace holding a `victim` file the attacks try to
// delete.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type CommandRule, type DshHost } from '../../../src/index.js';

export type Shell = 'oneshot' | 'persistent';

export interface RuleHost {
  /** Runs `command` as one `bash` call; returns the call's text and whether the victim survived. */
  run(command: string): Promise<{ text: string; victimSurvived: boolean }>;
  dispose(): Promise<void>;
}

export async function ruleHost(shell: Shell, approval: { rules: CommandRule[]; defaultAction: 'allow' | 'ask' | 'deny' }): Promise<RuleHost> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'dsh-rules-'));
  const victim = path.join(workspace, 'victim');
  const host: DshHost = await createHost(...localEnvironment({ workspace, shell, approval }));
  const session = host.openSession({ cwd: workspace });
  return {
    async run(command) {
      writeFileSync(victim, 'keep me\n');
      const result = await session.call('bash', { command, description: 'Attack' });
      return { text: result.content.map((part) => ('text' in part ? part.text : '')).join(''), victimSurvived: existsSync(victim) };
    },
    async dispose() {
      await host.dispose();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
