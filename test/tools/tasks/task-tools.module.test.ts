import { Container } from 'inversify';
import { ToolClass } from '../../../src/core/contributions.js';
import { PromptSection } from '../../../src/core/prompt-section.js';
import { getToolMeta } from '../../../src/core/tool.decorator.js';
import { withConstructorTokens } from '../../../src/core/constructor-tokens.js';
import { TaskRuntime } from '../../../src/providers/tasks/task-runtime.js';
import { taskRuntimeModule } from '../../../src/providers/tasks/tasks.module.js';
import { TaskCompletionNotifier } from '../../../src/tools/tasks/task-completion-notifier.js';
import { taskToolsModule } from '../../../src/tools/tasks/task-tools.module.js';
import { FakeTaskProcess, doneEvent } from '../../support/fake-task-process.js';
import { fakeSession } from '../../support/fake-session.js';

async function compose(config?: Parameters<typeof taskRuntimeModule>[0]) {
  const container = new Container();
  const runtimeModule = taskRuntimeModule(config);
  const toolsModule = taskToolsModule();
  await container.load(runtimeModule, toolsModule);
  return { container, runtimeModule, toolsModule };
}

describe('task modules', () => {
  it('bind the runtime, three tools and the tool:tasks prompt section', async () => {
    const { container, runtimeModule, toolsModule } = await compose();
    expect(runtimeModule.name).toBe('tasks:local');
    expect(toolsModule.name).toBe('tools:tasks');
    const classes = container.getAll(ToolClass);
    expect(classes.map((cls) => getToolMeta(cls)?.name).sort()).toEqual(['task_kill', 'task_list', 'task_output']);
    // Required through the constructor's @inject, not repeated in @Tool.
    for (const cls of classes) expect(withConstructorTokens(getToolMeta(cls)!, cls).requires).toEqual([TaskRuntime]);

    const sections = container.getAll(PromptSection);
    expect(sections).toEqual([expect.objectContaining({ name: 'tool:tasks', order: 110, tool: 'task_output' })]);
    expect(sections[0]!.text).toMatch(/task id/);
    expect(sections[0]!.text).toMatch(/task_kill/);
    expect(container.get(TaskRuntime)).toBe(container.get(TaskRuntime));
    await container.unload(toolsModule, runtimeModule);
  });

  it('tools resolved from the container share one notifier: one notice per settled task', async () => {
    const { container, runtimeModule, toolsModule } = await compose();
    const tools = container.getAll(ToolClass).map((cls) => container.get(cls));
    expect(tools).toHaveLength(3);
    expect(container.get(TaskCompletionNotifier)).toBe(container.get(TaskCompletionNotifier));

    const runtime = container.get(TaskRuntime);
    const session = fakeSession('a');
    const process = new FakeTaskProcess();
    const { id } = await runtime.start({ owner: session, kind: 'bash', label: 'x', producer: async () => process });
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    expect(session.notices).toHaveLength(1);
    await container.unload(toolsModule, runtimeModule);
  });

  it('a config reaches the runtime; a bad one fails at composition', async () => {
    const { container, runtimeModule, toolsModule } = await compose({ maxConcurrentTasksPerOwner: 1 });
    const runtime = container.get(TaskRuntime);
    const session = fakeSession('a');
    await runtime.start({ owner: session, kind: 'bash', label: 'x', producer: async () => new FakeTaskProcess() });
    expect(() => runtime.preflight(session)).toThrow(/limit 1/);
    expect(() => taskRuntimeModule({ maxConcurrentTasksPerOwner: 0 })).toThrow(/maxConcurrentTasksPerOwner/);
    await container.unload(toolsModule, runtimeModule);
  });

  it('unloading the runtime module disposes the runtime and kills its tasks', async () => {
    const { container, runtimeModule, toolsModule } = await compose();
    const runtime = container.get(TaskRuntime);
    const process = new FakeTaskProcess();
    await runtime.start({ kind: 'bash', label: 'x', producer: async () => process });
    await container.unload(toolsModule, runtimeModule);
    expect(process.killCalls).toBe(1);
    expect(() => runtime.preflight(undefined)).toThrow(/disposed/);
  });
});
