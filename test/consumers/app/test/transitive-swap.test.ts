// A swap two levels below a tool: the tool injects only the planner, the
// planner injects the executor. Replacing the executor after the tool was
// used reaches the next call; unloading the replacement restores the old one.
import 'reflect-metadata';
import { inject } from 'inversify';
import { IsString } from 'class-validator';
import { tmpdir } from 'node:os';
import {
  bindTool,
  CallPlanner,
  createHost,
  localEnvironment,
  PluginModule,
  ShellExecutor,
  textResult,
  Tool,
  type CallContext,
  type ExecRequest,
  type ExecSpec,
  type ToolInstance,
} from 'dsh-tools';

class PlanArgs {
  @IsString()
  command!: string;
}

@Tool({ name: 'plan_command', description: 'Plans a command without running it.', args: PlanArgs })
class PlanCommandTool implements ToolInstance<PlanArgs> {
  constructor(@inject(CallPlanner) private readonly planner: CallPlanner) {}
  async run(args: PlanArgs, ctx: CallContext) {
    const plan = await this.planner.plan({ tool: 'plan_command', command: args.command, background: false }, ctx);
    return textResult(`planned: ${plan.exec.command}`);
  }
}

class CountingChecks implements ShellExecutor {
  checks = 0;
  constructor(private readonly inner: ShellExecutor) {}
  checkRequest(request: ExecRequest): ExecSpec {
    this.checks += 1;
    return this.inner.checkRequest(request);
  }
  run: ShellExecutor['run'] = (spec, options) => this.inner.run(spec, options);
  start: ShellExecutor['start'] = (spec) => this.inner.start(spec);
}

it('rebuilds a tool when the executor its planner uses is swapped, and again when the swap is unloaded', async () => {
  const host = await createHost(
    ...localEnvironment({ workspace: tmpdir() }),
    new PluginModule('plan-command', ({ bind }) => bindTool(bind, PlanCommandTool)),
  );
  try {
    expect((await host.call('plan_command', { command: 'true' })).content[0]?.text).toBe('planned: true');
    const counting = new CountingChecks(host.get(ShellExecutor));
    const swap = await host.rebind(ShellExecutor, counting);
    expect((await host.call('plan_command', { command: 'echo 1' })).content[0]?.text).toBe('planned: echo 1');
    expect(counting.checks).toBe(1);
    await host.unload(swap);
    expect((await host.call('plan_command', { command: 'echo 2' })).content[0]?.text).toBe('planned: echo 2');
    expect(counting.checks).toBe(1);
  } finally {
    await host.dispose();
  }
});
