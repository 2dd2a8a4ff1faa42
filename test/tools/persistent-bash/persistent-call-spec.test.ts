// The persistent shell's defaults are filled in one explicit step, like the one-shot shell's resolve().
import { resolvePersistentBashConfig } from '../../../src/tools/persistent-bash/persistent-bash-config.js';
import { resolvePersistentCall } from '../../../src/tools/persistent-bash/persistent-call-spec.js';
import { fakeSession } from '../../support/fake-session.js';

describe('resolvePersistentCall', () => {
  const config = resolvePersistentBashConfig({ timeoutMs: 5_000, maxOutputChars: 100 });

  it('starts a shell in the session cwd, else the host workspace, else the server cwd', () => {
    expect(resolvePersistentCall(fakeSession('a', { cwd: '/srv/a' }), config, { workspace: '/ws' }).workdir).toBe('/srv/a');
    expect(resolvePersistentCall(fakeSession('b'), config, { workspace: '/ws' }).workdir).toBe('/ws');
    expect(resolvePersistentCall(fakeSession('c'), config).workdir).toBe(process.cwd());
  });

  it('takes the timeout, the clip window and the backend from the config, and keeps twice the window plus 1 KiB of raw text', () => {
    expect(resolvePersistentCall(fakeSession('d'), config)).toEqual({
      backendType: 'shell',
      workdir: process.cwd(),
      timeoutMs: 5_000,
      maxOutputChars: 100,
      scrollbackChars: 1_224,
    });
  });
});
