// A container host for the container-exec attack suites: the bash tool's text
// and the executor itself (for `stdin`, which the tool does not expose).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, ShellExecutor, type DshHost, type HostSession, type RunResult } from '../../../src/index.js';
import { TEST_IMAGE } from '../../support/container-engine.js';
import { fakeSession, type FakeSession } from '../../support/fake-session.js';

export interface ContainerExecHost {
  readonly root: string;
  /** The bash tool's whole text for one call. */
  call(command: string, extra?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /** The executor directly, with optional stdin. */
  run(command: string, stdin?: string): Promise<RunResult>;
  dispose(): Promise<void>;
}

export async function containerExecHost(sessionId: string): Promise<ContainerExecHost> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-sec-ct-')));
  const host: DshHost = await createHost(
    ...containerEnvironment({ workspace: root, executor: { graceMs: 300 }, container: { image: TEST_IMAGE } }),
  );
  const session: HostSession = host.openSession({ id: sessionId, cwd: root });
  const direct: FakeSession = fakeSession(`${sessionId}-direct`, { cwd: root });
  const executor = host.get(ShellExecutor);
  return {
    root,
    async call(command, extra = {}) {
      const result = await session.call('bash', { command, description: 'Attack', ...extra });
      return { text: result.content.map((block) => block.text).join(''), isError: result.isError === true };
    },
    run(command, stdin) {
      return executor.run(executor.checkRequest({ command, workdir: root, session: direct, ...(stdin === undefined ? {} : { stdin }) }));
    },
    async dispose() {
      await direct.dispose();
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A command of exactly `bytes` UTF-8 bytes: a `:` line of padding, then `tail`. */
export function commandOfBytes(bytes: number, tail: string): string {
  const head = ': ';
  const body = `\n${tail}`;
  return `${head}${'x'.repeat(bytes - Buffer.byteLength(head + body))}${body}`;
}
