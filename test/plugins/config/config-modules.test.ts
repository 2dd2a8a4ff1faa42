// Issue 37 item 8: a composition file loads through the library with the
// CLI's checks in library words, and a workspace that is not a directory is
// refused at createHost.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configModules, createHost, loadConfigFile, localEnvironment, sandboxedEnvironment } from '../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const names = async (config: Parameters<typeof configModules>[0]) => (await configModules(config)).map((module) => module.name);

let dir: string;
beforeAll(() => (dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-config-modules-')))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a workspace that is not a directory', () => {
  it('is refused at createHost, by path, whichever environment composed it', async () => {
    const missing = path.join(dir, 'no-such-dir');
    await expect(createHost(...localEnvironment({ workspace: missing }))).rejects.toThrow(`failed to load plugin "workspace": the workspace ${missing} does not exist`);
    await expect(createHost(...sandboxedEnvironment({ workspace: missing }))).rejects.toThrow(`the workspace ${missing} does not exist`);
    await expect(createHost(...(await configModules({ workspace: missing, container: { image: 'img' } })))).rejects.toThrow(`the workspace ${missing} does not exist`);
  });

  it('is refused when it is a file', async () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'x');
    await expect(createHost(...localEnvironment({ workspace: file }))).rejects.toThrow(`the workspace ${file} is not a directory`);
  });

  it('is checked when the host loads, so a directory made after composing counts', async () => {
    const later = path.join(dir, 'made-later');
    const modules = localEnvironment({ workspace: later });
    mkdirSync(later);
    const host = await createHost(...modules);
    await host.dispose();
  });
});

describe('configModules', () => {
  it('chooses the composition as the CLI does', async () => {
    expect(await names({ workspace: dir })).toContain('shell:local');
    expect(await names({ workspace: dir, sandbox: { mode: 'read-only' } })).toEqual(expect.arrayContaining(['shell:local', 'approval:local']));
    expect((await names({ workspace: dir, sandbox: {} })).some((name) => name.startsWith('sandbox'))).toBe(true);
    expect(await names({ workspace: dir, container: { image: 'img' }, sandbox: { mode: 'read-only', bwrapPath: '/x' } })).toContain('shell:container');
    expect(await names({ workspace: dir, kubernetes: { image: 'img' }, sandbox: { mode: 'read-only', network: false } })).toContain('shell:container');
    // serve: is the CLI's: it composes nothing and is not refused.
    expect(await names({ workspace: dir, serve: { sessionLifetimeMs: 5 } })).toEqual(await names({ workspace: dir }));
  });

  it('keeps command rules and answerers in container mode (the file said so)', async () => {
    const answerer = { name: 'a', kinds: ['command'] as const, answer: async () => 'rejected' as const };
    expect(await names({ workspace: dir, container: { image: 'img' }, approval: { rules: [] }, answerers: [answerer] })).toEqual(
      expect.arrayContaining(['approval:local', 'approval:answerers']),
    );
  });

  it.each([
    [{ container: { image: 'i' }, kubernetes: { image: 'i' } }, 'the container: and kubernetes: sections exclude each other: choose one'],
    [{ container: {} }, 'invalid container config: image is required'],
    [{ kubernetes: {} }, 'invalid kubernetes config: image is required'],
    [{ sandbox: { mode: 'workspace-write' as const }, workspace: '/' }, 'refusing to confine commands to "/": it is a system directory, not a project; choose a project directory as the workspace'],
  ])('refuses %j in library words', async (config, message) => {
    const refusal = configModules({ workspace: dir, ...config }).then(() => 'composed');
    await expect(refusal).rejects.toThrow(message);
    await expect(refusal).rejects.not.toThrow(/--(container|kubernetes|workspace)/);
  });
});

describe('a composition file through the library', () => {
  it('loads, composes and runs a real shell under its rules', async () => {
    mkdirSync(path.join(dir, 'repo'));
    const file = path.join(dir, 'dsh.yaml');
    writeFileSync(file, 'workspace: repo\napproval:\n  rules:\n    - { match: rm, action: deny, name: no rm }\n');
    const config = await loadConfigFile(file);
    expect(config.workspace).toBe(path.join(dir, 'repo'));
    const host = await createHost(...(await configModules(config)));
    try {
      expect(text(await host.call('bash', { command: 'pwd', description: 'Where' }))).toBe(path.join(dir, 'repo'));
      expect(text(await host.call('bash', { command: 'rm -f x', description: 'Remove' }))).toBe('Error: command denied by policy: no rm');
    } finally {
      await host.dispose();
    }
  });
});

describeWithEngine(`a container composition file keeps its command rules${NEEDS_ENGINE}`, () => {
  it('refuses a denied command in the session container (the CLI used to drop approval: in container mode)', async () => {
    const file = path.join(dir, 'container.json');
    writeFileSync(file, JSON.stringify({ workspace: '.', container: { image: TEST_IMAGE }, approval: { rules: [{ match: 'touch', action: 'deny' }] } }));
    const host = await createHost(...(await configModules(await loadConfigFile(file))));
    try {
      expect(text(await host.call('bash', { command: 'touch denied.txt', description: 'Write' }))).toMatch(/^Error: command denied by policy/);
      expect(text(await host.call('bash', { command: 'echo ran', description: 'Echo' }))).toBe('ran');
    } finally {
      await host.dispose();
    }
  });
});
