// The PTY module is optional: the loader takes the first that works and,
// with none, says what is missing and what to install.
import { loadFirstPty, loadPty, PTY_INSTALL_HINT } from '../../../../src/providers/backends/pty/pty-loader.js';

describe('loading the PTY module', () => {
  it('loads node-pty (or the prebuilt fallback) here, with a working spawn', async () => {
    const load = await loadPty();
    expect(load.ok && ['node-pty', '@lydell/node-pty'].includes(load.name)).toBe(true);
    expect(load.ok && typeof load.module.spawn).toBe('function');
  });

  it('falls back to the next module when the first is not installed', async () => {
    const load = await loadFirstPty(['dsh-no-such-pty-module', '@lydell/node-pty']);
    expect(load).toMatchObject({ ok: true, name: '@lydell/node-pty' });
  });

  it('with none installed, names each and what to install', async () => {
    const load = await loadFirstPty(['dsh-no-such-pty-a', 'dsh-no-such-pty-b']);
    expect(load).toEqual({
      ok: false,
      reason: `no PTY module loads (dsh-no-such-pty-a is not installed; dsh-no-such-pty-b is not installed); ${PTY_INSTALL_HINT}`,
    });
  });
});
