// Issue 33, item 3: in workspace-write a command could write `.git/config` (core.fsmonitor, hooksPath,
// aliases) or `.git/hooks/*`, and the host's next `git status` ran it unconfined. The protected paths
// stay read-only inside the writable workspace, whatever route the command takes to them.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, type DshHost } from '../../src/index.js';
import { sandboxedEnvironment } from '../../src/plugins/sandboxed.environment.js';
import { tempWorkspace } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const CONFIG = '[core]\n\trepositoryformatversion = 0\n';

describeWithBwrap(`protected paths stay read-only in workspace-write (bwrap)${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost | undefined;
  beforeEach(() => {
    ws = tempWorkspace('dsh-protected-');
    mkdirSync(path.join(ws.dir, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(ws.dir, '.git', 'config'), CONFIG);
    writeFileSync(path.join(ws.dir, '.envrc'), 'export A=1\n');
    mkdirSync(path.join(ws.dir, 'src'));
  });
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    ws.remove();
  });

  const gitUntouched = () => {
    expect(readFileSync(path.join(ws.dir, '.git', 'config'), 'utf8')).toBe(CONFIG);
    expect(lstatSync(path.join(ws.dir, '.git')).isDirectory()).toBe(true);
    expect(existsSync(path.join(ws.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(path.join(ws.dir, '.g'))).toBe(false);
  };

  describe.each(['oneshot', 'persistent'] as const)('%s shell', (shell) => {
    async function run(command: string, cwd?: string): Promise<string> {
      host ??= await createHost(...sandboxedEnvironment({ workspace: ws.dir, shell, sandbox: { mode: 'workspace-write' } }));
      const session = host.openSession({ cwd: ws.dir });
      return text(await session.call('bash', { command, description: 'Try the protected paths', ...(cwd ? { workdir: cwd } : {}) }));
    }

    it.each([
      ['core.fsmonitor in .git/config', 'printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" >> .git/config'],
      ['git config core.hooksPath', 'git config --file .git/config core.hooksPath /tmp'],
      ['a hook', 'printf "#!/bin/sh\\nid\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'],
      ['mv .git .g; mkdir .git', 'mv .git .g && mkdir .git && echo evil > .git/config'],
      ['.git replaced by a symlink', 'rm -rf .git && ln -s src .git'],
      ['.git removed', 'rm -rf .git'],
      ['a hard link to .git/config', 'ln .git/config cfg && echo evil >> cfg'],
      ['writing through ..', 'cd src && echo evil >> ../.git/config'],
      ['through /proc/self/cwd', 'echo evil >> /proc/self/cwd/.git/config'],
    ])('%s is refused and the host .git is unchanged', async (_name, command) => {
      const output = await run(`${command}; echo "exit $?"`);
      expect(output).toMatch(/exit [1-9]/);
      expect(output).toMatch(/Read-only file system|Device or resource busy|Invalid cross-device link|Operation not permitted/);
      gitUntouched();
    });

    it('.envrc is read-only, the rest of the workspace stays writable', async () => {
      const output = await run('echo evil >> .envrc; echo "envrc $?"; echo ok > src/file && cat src/file');
      expect(output).toMatch(/envrc 1/);
      expect(output).toMatch(/^ok$/m);
      expect(readFileSync(path.join(ws.dir, '.envrc'), 'utf8')).toBe('export A=1\n');
      expect(readFileSync(path.join(ws.dir, 'src', 'file'), 'utf8')).toBe('ok\n');
    });

    it('git still reads the repository inside (status works, nothing is written)', async () => {
      execFileSync('git', ['init', '-q', ws.dir]);
      const output = await run('git -c safe.directory="*" status --porcelain >/dev/null; echo "status $?"');
      expect(output).toMatch(/status 0/);
    });
  });

  it('a .git that is a symlink into the workspace protects its target', async () => {
    const real = path.join(ws.dir, 'gitdir');
    execFileSync('mv', [path.join(ws.dir, '.git'), real]);
    execFileSync('ln', ['-s', 'gitdir', path.join(ws.dir, '.git')]);
    host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'workspace-write' } }));
    const output = text(await host!.openSession({ cwd: ws.dir }).call('bash', { command: 'echo evil >> gitdir/config; echo "exit $?"', description: 'Write' }));
    expect(output).toMatch(/^exit 1\n\[stderr\]\n.*Read-only file system/);
    expect(readFileSync(path.join(real, 'config'), 'utf8')).toBe(CONFIG);
  });

  it('a configured list replaces the default (an empty list protects nothing)', async () => {
    host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'workspace-write', protectedPaths: [] } }));
    const output = text(await host!.openSession({ cwd: ws.dir }).call('bash', { command: 'echo x >> .envrc; echo "exit $?"', description: 'Write' }));
    expect(output).toBe('exit 0');
  });

  it('the prompt tells the model which paths are protected', async () => {
    host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'workspace-write' } }));
    const section = host!.prompt().sections.find((s) => s.name === 'sandbox:protected-paths');
    expect(section?.text).toBe(
      "These workspace paths stay read-only even when the workspace is writable, because the host's own tools run what they hold: `.git`, `.envrc`, `.vscode`. " +
        'Do not try to change them (a write fails with "Read-only file system"); tell the user what change is needed instead.',
    );
  });
});
