// A call's plan travels with the call as plain data to its end event: one per
// call, also for a call a check refused, never from a callback that outlived it.
import { ContainerModule } from 'inversify';
import { containerEnvironment, createHost, localEnvironment, sandboxedEnvironment, type DshHost } from '../../../../src/index.js';
import { bindTool } from '../../../../src/core/contributions.js';
import { Tool } from '../../../../src/core/tool.decorator.js';
import { textResult, type CallContext, type ToolInstance } from '../../../../src/core/tool-contract.js';
import type { PluginModule } from '../../../../src/core/plugin-module.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';
import { describeWithEngine, NEEDS_ENGINE, TEST_IMAGE } from '../../../support/container-engine.js';
import { EchoArgs } from '../../../support/echo-tool.js';
import { observerModule, RecordingObserver, tempDir } from '../../../support/observability-kit.js';

async function withHost(make: (workspace: string) => PluginModule[], test: (host: DshHost, workspace: string, recording: RecordingObserver) => Promise<void>): Promise<void> {
  const tmp = tempDir('plan-record-');
  const recording = new RecordingObserver();
  const host = await createHost(...make(tmp.dir), observerModule(recording));
  try {
    await test(host, tmp.dir, recording);
  } finally {
    await host.dispose();
    tmp.remove();
  }
}

describe.each(['oneshot', 'persistent'] as const)('the plan of a %s call on a local host', (shell) => {
  it('reaches the end event as plain data: allowed, and refused by a rule with what was decided', async () => {
    await withHost(
      (workspace) => localEnvironment({ workspace, shell, approval: { rules: [{ match: 'rm', action: 'deny' }] } }),
      async (host, workspace, recording) => {
        const session = host.openSession({ cwd: workspace });
        await session.call('bash', { command: 'echo fine', description: 'allowed' });
        const denied = await session.call('bash', { command: 'rm -rf ./nothing', description: 'denied' });
        expect(denied.isError).toBe(true);
        const [allowed, refused] = recording.ends;
        expect(allowed!.plan).toEqual({ site: 'local', verdict: 'allow' });
        expect(refused!.plan).toEqual({ site: 'local', verdict: 'deny', refused: true });
        expect([allowed!.outcome, refused!.outcome, refused!.policyVerdict]).toEqual(['ok', 'denied', 'deny']);
        // Data, not a live object: it survives a JSON round trip and cannot be changed by an observer.
        expect(JSON.parse(JSON.stringify(refused!.plan))).toEqual(refused!.plan);
        expect(Object.isFrozen(refused!.plan)).toBe(true);
      },
    );
  });
});

/** A custom tool that keeps the call's `onPlan` and hands a plan over only after it answered. */
@Tool({ name: 'late_planner', description: 'Plans too late.', args: EchoArgs, requires: [] })
class LatePlannerTool implements ToolInstance<EchoArgs> {
  static kept: CallContext['onPlan'];
  async run(_args: EchoArgs, ctx: CallContext) {
    ctx.onPlan?.(Object.freeze({ site: 'local' as const, verdict: 'allow' as const }));
    LatePlannerTool.kept = ctx.onPlan;
    return textResult('answered');
  }
}

describe('a plan handed over after the call answered', () => {
  it('does not change the ended call (the end event keeps the plan made during the call)', async () => {
    await withHost(
      (workspace) => [...localEnvironment({ workspace }), new ContainerModule(({ bind }) => void bindTool(bind, LatePlannerTool))] as PluginModule[],
      async (host, workspace, recording) => {
        const session = host.openSession({ cwd: workspace });
        await session.call('late_planner' as string, { text: 'x' });
        LatePlannerTool.kept?.(Object.freeze({ site: 'local' as const, verdict: 'deny' as const, refused: true as const }));
        await session.call('bash', { command: 'true', description: 'next call' });
        expect(recording.ends.map((end) => end.plan)).toEqual([{ site: 'local', verdict: 'allow' }, { site: 'local' }]);
      },
    );
  });
});

describeWithBwrap(`the plan of a sandboxed call${NEEDS_BWRAP}`, () => {
  it.each(['oneshot', 'persistent'] as const)('names the site, the mode and the confinement of a %s call', async (shell) => {
    await withHost(
      (workspace) => sandboxedEnvironment({ workspace, shell, sandbox: { mode: 'read-only' } }),
      async (host, workspace, recording) => {
        const session = host.openSession({ cwd: workspace });
        await session.call('bash', { command: 'true', description: 'confined' });
        const plan = recording.ends[0]!.plan!;
        expect(plan).toMatchObject({ site: 'sandbox', sandboxMode: 'read-only' });
        expect(typeof plan.confinement).toBe('string');
        expect(plan).not.toHaveProperty('refused');
      },
    );
  });

  it('carries the mode a refused escalation was decided under', async () => {
    await withHost(
      (workspace) => sandboxedEnvironment({ workspace, sandbox: { mode: 'read-only' } }),
      async (host, workspace, recording) => {
        const session = host.openSession({ cwd: workspace });
        const refused = await session.call('bash', {
          command: 'touch x',
          description: 'asks for more',
          sandbox_permissions: 'workspace-write',
          justification: 'needs to write',
        });
        expect(refused.isError).toBe(true);
        expect(recording.ends[0]!.plan).toEqual({ site: 'sandbox', verdict: 'allow', sandboxMode: 'read-only', refused: true });
        expect(recording.ends[0]!.sandboxMode).toBe('read-only');
      },
    );
  });
});

describeWithEngine(`the plan of a call in a session container${NEEDS_ENGINE}`, () => {
  it('names the container site and no sandbox mode (the container is the confinement)', async () => {
    await withHost(
      (workspace) => containerEnvironment({ workspace, container: { image: TEST_IMAGE } }),
      async (host, workspace, recording) => {
        const session = host.openSession({ cwd: workspace });
        await session.call('bash', { command: 'true', description: 'in the container' });
        const plan = recording.ends[0]!.plan!;
        expect(plan.site).toBe('container');
        expect(plan).not.toHaveProperty('sandboxMode');
        expect(plan).not.toHaveProperty('refused');
        await session.dispose();
      },
    );
  });
});
