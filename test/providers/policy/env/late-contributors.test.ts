// Contributions are read at call time: an env contributor, terminal backend or
// approval answerer loaded after the tools are active is used by the next call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, staticEnvModule, type DshHost } from '../../../../src/index.js';

describe('contributions loaded after the tools are active', () => {
  let dir: string;
  let host: DshHost | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dsh-late-env-'));
  });

  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['oneshot', 'persistent'] as const)('an EnvContributor loaded after %s bash is active is in the next call’s environment', async (shell) => {
    host = await createHost(...localEnvironment({ workspace: dir, shell }));
    const session = host.openSession({ cwd: dir });
    const before = await session.call('bash', { command: 'printf "[%s]" "${DSH_LATE-unset}"', description: 'print DSH_LATE' });
    expect(before.content[0]).toMatchObject({ text: expect.stringContaining('[unset]') });

    await host.load(staticEnvModule('late', { DSH_LATE: 'here' }));
    const after = await session.call('bash', { command: 'printf "[%s]" "${DSH_LATE-unset}"', description: 'print DSH_LATE' });
    expect(after.isError).toBeFalsy();
    expect(after.content[0]).toMatchObject({ text: expect.stringContaining('[here]') });
    await session.dispose();
  });

  it('a contributor loaded later that claims a key another owns fails the next call with the owner named', async () => {
    host = await createHost(...localEnvironment({ workspace: dir }));
    await host.load(staticEnvModule('first', { DSH_TWICE: 'a' }));
    await host.load(staticEnvModule('second', { DSH_TWICE: 'b' }));
    const result = await host.call('bash', { command: 'true', description: 'run nothing' });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: 'Error: env contributor "second" declares DSH_TWICE, which "first" already owns' });
  });
});
