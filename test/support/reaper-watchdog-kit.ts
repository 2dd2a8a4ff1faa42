// Shared by the reaper watchdog's suites (test/providers/exec/process/reaper-watchdog-*.test.ts).
import { createHost, localEnvironment, type DshHost } from '../../src/index.js';

export { isAlivePid } from './process-table.js';

/** A local host that has run one command: the process's watchdog starts with its first command. */
export async function hostThatRan(): Promise<DshHost> {
  const host = await createHost(...localEnvironment({ workspace: '/tmp' }));
  const result = await host.openSession({ cwd: '/tmp' }).call('bash', { command: 'echo ran', description: 'Run' });
  expect(result.content[0]!.text).toBe('ran');
  return host;
}
