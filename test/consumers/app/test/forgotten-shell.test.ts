// A test that forgets to dispose its host, with a persistent shell open on a
// real PTY. jest must still exit by itself, with --detectOpenHandles quiet:
// once nothing else keeps the process alive, the host closes the shell and
// says so (warning DSH_FORGOTTEN_SHELL). scripts/consumer-check.sh runs this
// file alone with --detectOpenHandles and checks both.
import 'reflect-metadata';
import { createHost, localEnvironment } from 'dsh-tools';
import { tmpdir } from 'node:os';

it('uses a persistent shell and never disposes its host', async () => {
  const host = await createHost(...localEnvironment({ workspace: tmpdir(), shell: 'persistent' }));
  const session = host.openSession({ cwd: tmpdir() });
  await session.call('bash', { command: 'export LEFT=open' });
  const result = await session.call('bash', { command: 'echo "$LEFT"' });
  expect(result.content[0]?.text).toBe('open');
});
