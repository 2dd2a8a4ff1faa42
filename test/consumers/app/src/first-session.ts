// The first page of docs/embedding.md: a host over the local shell, one
// session, one command, the prompt, and disposal.
import 'reflect-metadata';
import { createHost, localEnvironment, staticEnvModule } from 'dsh-tools';
import type { ToolResult } from 'dsh-tools';

export interface FirstSession {
  readonly text: string;
  readonly exitCode?: number;
  readonly sections: readonly string[];
  readonly notices: readonly string[];
}

export async function firstSession(workspace: string, transcript: string): Promise<FirstSession> {
  const host = await createHost(
    ...localEnvironment({
      workspace,
      shell: 'oneshot',                       // or 'persistent', or 'both' (bash + bash_persistent)
      executor: { timeoutMs: 60_000, maxOutputBytes: 32_000 },
      tasks: { maxConcurrentTasksPerOwner: 5 },
    }),
    staticEnvModule('deploy', { DSH_DEPLOY_ENV: 'staging' }),
  );
  // jsonlPath writes nothing: it is only exported to commands as DSH_SESSION_JSONL (your transcript's path, if you keep one).
  const session = host.openSession({ id: 'agent-7', cwd: workspace, jsonlPath: transcript });
  const system = host.prompt();               // { sections, tools } for the model request
  const result = await session.call('bash', { command: 'echo "$DSH_DEPLOY_ENV"', description: 'Show the stage' });
  const text = result.content[0]?.text;       // exact model-visible text
  const value = result.value;                 // typed: BashResultValue | PersistentBashValue
  const notices = session.takeNotices();      // finished background tasks, for the next turn
  await session.dispose();                    // kills its tasks, closes its shell, awaits both
  await host.dispose();
  return { text: text ?? '', exitCode: exitCodeOf(value), sections: system.sections.map((section) => section.name), notices };
}

function exitCodeOf(value: ToolResult<unknown>['value']): number | undefined {
  const typed = value as { kind?: string; exitCode?: number } | undefined;
  return typed?.kind === 'foreground' ? typed.exitCode : undefined;
}
