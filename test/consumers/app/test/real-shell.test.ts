// A real persistent shell (a PTY) from the consumer's jest suite: works in
// CommonJS jest without --experimental-vm-modules as well as in ESM mode.
import 'reflect-metadata';
import { createHost, localEnvironment } from 'dsh-tools';
import { tmpdir } from 'node:os';

it('keeps shell state between calls on a real PTY', async () => {
  const host = await createHost(...localEnvironment({ workspace: tmpdir(), shell: 'persistent' }));
  try {
    expect(host.pending()).toEqual([]);
    const session = host.openSession({ cwd: tmpdir() });
    await session.call('bash', { command: 'cd / && export GREETING=hi' });
    const result = await session.call('bash', { command: 'echo "$GREETING from $(pwd)"' });
    expect(result.content[0]?.text).toBe('hi from /');
  } finally {
    await host.dispose();
  }
});
