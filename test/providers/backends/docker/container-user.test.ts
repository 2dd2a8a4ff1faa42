// A container user that cannot enter a directory: both shells say so in the local shell's words, nothing runs elsewhere.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`an unprivileged container user and a locked directory${NEEDS_ENGINE}`, () => {
  let root: string;
  let locked: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-user-')));
    chmodSync(root, 0o755);
    locked = path.join(root, 'locked');
    mkdirSync(locked, { mode: 0o700 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(['oneshot', 'persistent'] as const)('%s: refuses the locked directory with EACCES', async (shell) => {
    const host = await createHost(...containerEnvironment({ workspace: root, shell, container: { image: TEST_IMAGE, user: '65534' } }));
    try {
      if (shell === 'oneshot') {
        const result = await host.call('bash', { command: 'echo ran', description: 'Try', workdir: locked });
        expect(text(result)).toBe(`Error: workdir is not accessible: ${locked} (EACCES)`);
      } else {
        const session = host.openSession({ cwd: locked });
        expect(text(await session.call('bash', { command: 'echo ran' }))).toBe(`Error: working directory is not accessible: ${locked} (EACCES)`);
        await session.dispose();
      }
    } finally {
      await host.dispose();
    }
  });
});
