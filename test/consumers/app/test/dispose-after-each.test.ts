// disposeAfterEach registers the disposal of what a test made, newest first.
import 'reflect-metadata';
import { createHost, localEnvironment } from 'dsh-tools';
import { disposeAfterEach } from 'dsh-tools/testing';
import { tmpdir } from 'node:os';

const workspace = tmpdir();
const track = disposeAfterEach(afterEach);       // jest, vitest or mocha's afterEach

it('runs a command', async () => {
  const host = track(await createHost(...localEnvironment({ workspace, shell: 'persistent' })));
  const session = track(host.openSession({ cwd: workspace }));
  expect((await session.call('bash', { command: 'echo hi' })).content[0]?.text).toBe('hi');
});
