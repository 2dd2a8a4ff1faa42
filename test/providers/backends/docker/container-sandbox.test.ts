// --sandbox with --container: the mode decides how the workspace is mounted; no bwrap runs.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type SandboxMode } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`sandbox modes in container mode${NEEDS_ENGINE}`, () => {
  let root: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-sbx-')));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function touch(mode: SandboxMode, file: string): Promise<string> {
    const host = await createHost(...containerEnvironment({ workspace: root, sandbox: { mode }, container: { image: TEST_IMAGE } }));
    try {
      return text(await host.call('bash', { command: `touch ${file} && echo written`, description: 'Write a file' }));
    } finally {
      await host.dispose();
    }
  }

  it('read-only mounts the workspace read-only', async () => {
    expect(await touch('read-only', 'ro.txt')).toMatch(/Read-only file system[\s\S]*\[exit code: 1\]$/);
    expect(existsSync(path.join(root, 'ro.txt'))).toBe(false);
  });

  it('workspace-write mounts it read-write', async () => {
    expect(await touch('workspace-write', 'rw.txt')).toBe('written');
    expect(existsSync(path.join(root, 'rw.txt'))).toBe(true);
  });
});
