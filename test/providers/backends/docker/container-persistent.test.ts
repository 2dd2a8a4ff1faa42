// The persistent bash in a session's container: what only a container shows (its processes, the image env).
// The model-visible behaviour shared with the local PTY is test/contract/persistent-contract.ts.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { containerProcesses } from '../../../support/container-kit.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`persistent bash in a container${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-pty-')));
    host = await createHost(
      ...containerEnvironment({
        workspace: root,
        shell: 'persistent',
        container: { image: TEST_IMAGE },
        persistent: { timeoutMs: 3_000 },
      }),
    );
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps cd, exports and functions across calls, inside the container', async () => {
    const session = host.openSession({ id: 'pty-state', cwd: root });
    try {
      expect(text(await session.call('bash', { command: 'mkdir -p sub && cd sub && export KEPT=yes && f() { echo fn; }' }))).toBe('(no output)');
      expect(text(await session.call('bash', { command: 'pwd; echo $KEPT; f; echo $DSH_SESSION_ID $DSH_IMAGE_VAR' }))).toBe(
        `${root}/sub\nyes\nfn\npty-state from-image`,
      );
      expect(text(await session.call('bash', { command: 'false' }))).toBe('(no output)\n[exit code: 1]');
      expect((await containerProcesses(session.id)).some((l) => /bash --noprofile --norc --noediting -i/.test(l))).toBe(true);
    } finally {
      await session.dispose();
    }
  });

  it('reports the shell exit, and the next call gets a fresh shell', async () => {
    const session = host.openSession({ id: 'pty-exit', cwd: root });
    try {
      await session.call('bash', { command: 'export GONE=1; sleep 4949 &' });
      const exited = text(await session.call('bash', { command: 'exit 7' }));
      expect(exited).toContain('[shell exited: code 7]');
      expect(exited).toContain('[shell reset: the next call starts a fresh shell in the workspace]');
      expect(text(await session.call('bash', { command: 'echo ${GONE:-unset}' }))).toContain('unset');
      expect((await containerProcesses(session.id)).filter((l) => l.includes('sleep 4949'))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it('times out, kills the command tree in the container, and resets', async () => {
    const session = host.openSession({ id: 'pty-timeout', cwd: root });
    try {
      const result = text(await session.call('bash', { command: 'sleep 4848' }));
      expect(result).toContain('[timed out after 3000ms]');
      expect((await containerProcesses(session.id)).filter((l) => l.includes('sleep 4848'))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });
});
