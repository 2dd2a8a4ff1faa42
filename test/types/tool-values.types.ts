// Type-level test, checked by `npm run lint` (tsc over test/): result values
// are typed by tool name for the built-in tools. Each @ts-expect-error line
// fails the lint if the line below it stops being an error.
import type { DshHost, HostSession, TaskKillValue, TaskListValue, TaskOutputValue, ToolResult } from '../../src/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const holds = <T extends true>(): T | undefined => undefined;

export async function typedResults(session: HostSession, host: DshHost, someName: string): Promise<void> {
  const bash = await session.call('bash', { command: 'true', description: 'Nothing' });
  const value = bash.value;
  if (value?.kind === 'background') {
    const id: string = value.taskId;
    void id;
  } else if (value?.shell === 'oneshot') {
    const exit: number | null = value.exitCode;
    const out: string = value.stdout;
    void [exit, out];
  } else if (value) {
    const reset: boolean = value.shellReset;
    void reset;
  }
  // @ts-expect-error a bash value has no such field
  void value?.nonsense;

  // Arguments are typed by tool name too.
  // @ts-expect-error command must be a string
  await session.call('bash', { command: 1, description: 'Wrong type' });
  // @ts-expect-error task_kill needs task_id
  await session.call('task_kill', { reason: 'no id' });
  // @ts-expect-error no such argument of task_output
  await session.call('task_output', { task_id: 'bash-1', tail: 5 });
  // The persistent shell beside the one-shot one (`shell: 'both'`) is typed as the persistent tool.
  const persistent = await session.call('bash_persistent', { command: 'cd /tmp', restart: true });
  const shellReset: boolean | undefined = persistent.value?.shellReset;
  void shellReset;
  // @ts-expect-error the persistent shell has no run_in_background
  await session.call('bash_persistent', { command: 'ls', run_in_background: true });
  // A name typed as string takes any arguments (they are validated at run time).
  await session.call<string>('bash', { command: 'ls', env: { PATH: '/x' } });

  const list = await session.call('task_list', {});
  const kill = await session.call('task_kill', { task_id: 'bash-1' });
  const output = await host.call('task_output', { task_id: 'bash-1' });
  holds<Equal<typeof list.value, TaskListValue | undefined>>();
  holds<Equal<typeof kill.value, TaskKillValue | undefined>>();
  holds<Equal<typeof output.value, TaskOutputValue | undefined>>();

  // Any other tool name (or a name only known at run time) keeps `unknown`.
  const mine: ToolResult<unknown> = await session.call('my_tool', {});
  holds<Equal<typeof mine.value, unknown>>();
  const dynamic = await session.call(someName, {});
  holds<Equal<typeof dynamic.value, unknown>>();
  // @ts-expect-error an unknown value cannot be used without narrowing
  void (await session.call('my_tool', {})).value.anything;
}
