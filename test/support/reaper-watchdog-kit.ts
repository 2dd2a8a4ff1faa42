// Shared by the reaper watchdog's suites (test/providers/exec/process/reaper-watchdog-*.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHost, localEnvironment, type DshHost } from '../../src/index.js';
import { INSTANCE_ID, PROCESS_TAG_VARIABLE } from '../../src/providers/exec/process/leftover-reaper.js';

export { isAlivePid } from './process-table.js';

/** A local host that has run one command: the process's watchdog starts with its first command. */
export async function hostThatRan(): Promise<DshHost> {
  const host = await createHost(...localEnvironment({ workspace: '/tmp' }));
  const result = await host.openSession({ cwd: '/tmp' }).call('bash', { command: 'echo ran', description: 'Run' });
  expect(result.content[0]!.text).toBe('ran');
  return host;
}

/** A process carrying this server's tag, as a command's stray would (the caller kills it after its test). */
export function carrier(name: string): ChildProcess {
  return spawn('sleep', ['60'], { env: { ...process.env, [PROCESS_TAG_VARIABLE]: `${INSTANCE_ID}.${name}` }, stdio: 'ignore' });
}
