// docs/embedding.md "What a result's text is": the trailing-newline rules, on real shells.
import { createHost, localEnvironment } from '../../src/index.js';
import { disposeAfterEach } from '../../src/testing.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const track = disposeAfterEach(afterEach);

it('one-shot: one trailing newline dropped unless it is all there is; the value keeps the stream as captured', async () => {
  const session = track(track(await createHost(...localEnvironment({ workspace: '/tmp' }))).openSession({ cwd: '/tmp' }));
  const call = (command: string) => session.call('bash', { command, description: 'Print' });
  expect(text(await call('echo hi'))).toBe('hi');
  expect(text(await call('echo'))).toBe('\n');
  expect(text(await call("printf 'a\\n\\n'"))).toBe('a\n');
  const result = await call('echo hi');
  expect(result.value).toMatchObject({ stdout: 'hi\n' });
});

it('persistent: one trailing newline dropped, (no output) for a lone newline; the value keeps it', async () => {
  const host = track(await createHost(...localEnvironment({ workspace: '/tmp', shell: 'persistent' })));
  const session = track(host.openSession({ cwd: '/tmp' }));
  expect(text(await session.call('bash', { command: 'echo hi' }))).toBe('hi');
  expect(text(await session.call('bash', { command: 'echo' }))).toBe('(no output)');
  expect(text(await session.call('bash', { command: "printf 'a\\n\\n'" }))).toBe('a\n');
  expect((await session.call('bash', { command: 'echo hi' })).value).toMatchObject({ output: 'hi\n' });
});
