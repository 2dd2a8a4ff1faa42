// A request nobody planned (an embedder's tool calling the executor itself)
// gets the policy's fallback plan: in a read-only sandbox its write is
// refused, and its call carries no plan of its own; without a sandbox it runs
// unconfined, as the composition decided.
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { IsString } from 'class-validator';
import { inject } from 'inversify';
import {
  Confinement,
  FallbackPlanner,
  PluginModule,
  ShellExecutor,
  Tool,
  bindTool,
  createHost,
  localEnvironment,
  sandboxedEnvironment,
  textResult,
  type ToolInstance,
} from '../../../../src/index.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';
import { observerModule, RecordingObserver, tempDir } from '../../../support/observability-kit.js';

class WriteArgs {
  @IsString()
  file!: string;
}

@Tool({ name: 'write_file', description: 'Writes a file.', args: WriteArgs, requires: [ShellExecutor] })
class WriteFileTool implements ToolInstance<WriteArgs> {
  constructor(@inject(ShellExecutor) private readonly executor: ShellExecutor) {}
  async run(args: WriteArgs) {
    // No confinement in the request: the executor asks the policy for the plan.
    const ran = await this.executor.run(this.executor.checkRequest({ command: `touch ${args.file}` }));
    return textResult(`exit ${ran.exitCode}`, { exitCode: ran.exitCode, denied: ran.confinementDenied === true });
  }
}

const toolModule = (): PluginModule => new PluginModule('write-file', ({ bind }) => bindTool(bind, WriteFileTool));

describeWithBwrap(`a request nobody planned, in the sandbox${NEEDS_BWRAP}`, () => {
  it('runs under the fallback plan (the session default): a write in a read-only sandbox is refused', async () => {
    const tmp = tempDir('fallback-plan-');
    const recording = new RecordingObserver();
    const host = await createHost(...sandboxedEnvironment({ workspace: tmp.dir, sandbox: { mode: 'read-only' } }), toolModule(), observerModule(recording));
    try {
      expect(host.get(FallbackPlanner)).toBe(host.get(Confinement));
      const session = host.openSession({ cwd: tmp.dir });
      const target = path.join(tmp.dir, 'written-unplanned');
      const result = await session.call('write_file' as string, { file: target });
      expect(result.value).toMatchObject({ denied: true });
      expect(existsSync(target)).toBe(false);
      expect(recording.ends[0]).not.toHaveProperty('plan');
    } finally {
      await host.dispose();
      tmp.remove();
    }
  });
});

describe('a request nobody planned, without a sandbox', () => {
  it('has no fallback plan to ask and runs unconfined', async () => {
    const tmp = tempDir('fallback-plan-');
    const host = await createHost(...localEnvironment({ workspace: tmp.dir }), toolModule());
    try {
      expect(host.isBound(FallbackPlanner)).toBe(false);
      const session = host.openSession({ cwd: tmp.dir });
      const target = path.join(tmp.dir, 'written-unplanned');
      const result = await session.call('write_file' as string, { file: target });
      expect(result.value).toEqual({ exitCode: 0, denied: false });
      expect(existsSync(target)).toBe(true);
    } finally {
      await host.dispose();
      tmp.remove();
    }
  });
});
