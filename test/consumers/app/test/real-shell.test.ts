// A real one-shot command and a real persistent shell (a PTY) from the
// consumer's jest suite: both work in CommonJS jest without
// --experimental-vm-modules as well as in ESM mode.
import 'reflect-metadata';
import { createHost, localEnvironment } from 'dsh-tools';
import { tmpdir } from 'node:os';

it('runs a real one-shot command', async () => {
  const host = await createHost(...localEnvironment({ workspace: tmpdir() }));
  try {
    const result = await host.openSession({ cwd: tmpdir() }).call('bash', { command: 'echo out; exit 3', description: 'Print and fail' });
    expect(result.content[0]?.text).toBe('out\n[exit code: 3]');
  } finally {
    await host.dispose();
  }
});

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
