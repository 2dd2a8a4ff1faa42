// A swap rebuilds every tool that reaches the swapped provider through other
// providers (a tool → its planner → the executor), derived from constructor
// metadata: no tool lists those tokens in @Tool (src/container/binding-graph.ts).
import { inject, injectable } from 'inversify';
import { IsString } from 'class-validator';
import type { ServiceIdentifier } from 'inversify';
import {
  bindTool,
  CallPlanner,
  CommandPolicy,
  createHost,
  localEnvironment,
  PluginModule,
  replace,
  ShellExecutor,
  textResult,
  Tool,
  type CallContext,
  type DshHost,
  type ExecRequest,
  type ExecSpec,
  type ToolInstance,
} from '../../src/index.js';

class CommandArgs {
  @IsString()
  command!: string;
}

/** Injects the planner only: the executor is two levels below it. */
@Tool({ name: 'plan_only', description: 'Plans a command and says its workdir.', args: CommandArgs })
class PlanOnlyTool implements ToolInstance<CommandArgs> {
  constructor(@inject(CallPlanner) private readonly planner: CallPlanner) {}
  async run(args: CommandArgs, ctx: CallContext) {
    const plan = await this.planner.plan({ tool: 'plan_only', command: args.command, background: false }, ctx);
    return textResult(`planned in ${plan.exec.workdir}`);
  }
}
const planOnlyModule = new PluginModule('plan-only', ({ bind }) => bindTool(bind, PlanOnlyTool));

/** An executor wrapper that counts the requests it checks (what the planner asks of it). */
class CheckingExecutor implements ShellExecutor {
  checks = 0;
  constructor(private readonly inner: ShellExecutor) {}
  checkRequest(request: ExecRequest): ExecSpec {
    this.checks += 1;
    return this.inner.checkRequest(request);
  }
  run: ShellExecutor['run'] = (spec, options) => this.inner.run(spec, options);
  start: ShellExecutor['start'] = (spec) => this.inner.start(spec);
}

// A chain of the test's own: a tool → a (transient) class provider → a leaf value. (Inversify 7.11
// keeps resolving a `toService` alias to the value it first planned after the target is rebound,
// so the chain has no alias.)
interface Leaf {
  readonly word: string;
}
const Leaf: ServiceIdentifier<Leaf> = Symbol.for('test.transitive.Leaf');
@injectable()
class Middle {
  constructor(@inject(Leaf) readonly leaf: Leaf) {}
}
class NoArgs {}
@Tool({ name: 'say', description: 'Says the leaf word.', args: NoArgs })
class SayTool implements ToolInstance<NoArgs> {
  constructor(@inject(Middle) private readonly middle: Middle) {}
  async run() {
    return textResult(this.middle.leaf.word);
  }
}
const chainModule = new PluginModule('chain', ({ bind }) => {
  bind(Leaf).toConstantValue({ word: 'first' });
  bind(Middle).toSelf();
  bindTool(bind, SayTool);
});

const hosts: DshHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});
async function host(...extra: PluginModule[]): Promise<DshHost> {
  const created = await createHost(...localEnvironment({ workspace: '/tmp' }), ...extra);
  hosts.push(created);
  return created;
}

describe('a swap below a tool rebuilds it', () => {
  it('the executor the planner uses: the next call after the swap plans with the new one, an unload restores the old', async () => {
    const h = await host(planOnlyModule);
    expect((await h.call('plan_only', { command: 'true' })).content[0]!.text).toBe('planned in /tmp');
    const checking = new CheckingExecutor(h.get(ShellExecutor));
    const swap = await h.rebind(ShellExecutor, checking);
    expect((await h.call('plan_only', { command: 'true' })).content[0]!.text).toBe('planned in /tmp');
    expect(checking.checks).toBe(1);
    await h.unload(swap);
    expect((await h.call('plan_only', { command: 'true' })).content[0]!.text).toBe('planned in /tmp');
    expect(checking.checks).toBe(1);
  });

  it('a command policy the built-in bash only reaches through its planner applies to the next call, and goes with its unload', async () => {
    const h = await host();
    const session = h.openSession({ cwd: '/tmp' });
    expect((await session.call('bash', { command: 'echo before', description: 'Echo' })).content[0]!.text).toContain('before');
    const policy = replace(CommandPolicy, { check: async () => ({ allowed: false as const, message: 'refused by the swapped policy' }) });
    await h.load(policy);
    const refused = await session.call('bash', { command: 'echo during', description: 'Echo' });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.content[0]!.text).toContain('refused by the swapped policy');
    await h.unload(policy);
    expect((await session.call('bash', { command: 'echo after', description: 'Echo' })).content[0]!.text).toContain('after');
  });

  it('a value behind a class provider: replaced after use, the next call sees the new one', async () => {
    const h = await host(chainModule);
    expect((await h.call('say', {})).content[0]!.text).toBe('first');
    const swap = replace(Leaf, { word: 'second' });
    await h.load(swap);
    expect((await h.call('say', {})).content[0]!.text).toBe('second');
    await h.unload(swap);
    expect((await h.call('say', {})).content[0]!.text).toBe('first');
  });

  it('a tool whose provider injects an unbound token is pending with that token named, and activates once it is bound', async () => {
    const h = await host(new PluginModule('chain-without-leaf', ({ bind }) => {
          bind(Middle).toSelf();
      bindTool(bind, SayTool);
    }));
    expect(h.pending()).toEqual([expect.objectContaining({ name: 'say', missing: [expect.stringContaining('test.transitive.Leaf')] })]);
    await h.load(new PluginModule('leaf', ({ bind }) => void bind(Leaf).toConstantValue({ word: 'late' })));
    expect((await h.call('say', {})).content[0]!.text).toBe('late');
  });
});
