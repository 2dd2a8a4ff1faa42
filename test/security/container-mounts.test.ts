// Issue 33, item 3 and issue 34, item 3 in session containers: a writable workspace must not let a command
// plant code the host runs (.git/config, hooks, .envrc), the server's own files must not be mounted, and the
// mounts given to a session carry nosuid,nodev (noexec where asked) where the engine can set them.
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type ContainerConfig, type DshHost } from '../../src/index.js';
import { forgetServerFile, hideServerFile } from '../../src/core/server-files.js';
import type { SandboxMode } from '../../src/core/sandbox-mode.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { run } from './support/container-defaults-kit.js';

const CONFIG = '[core]\n\trepositoryformatversion = 0\n';
const SECRET = 'dsh-ct-secret-77d2';

/** `<target> <options>` for each mount at `targets`, as /proc/self/mountinfo shows it inside (the image has no awk). */
const mountOptions = (targets: string[]) =>
  `while read -r _ _ _ _ target options _; do case " ${targets.join(' ')} " in *" $target "*) echo "$target $options";; esac; done < /proc/self/mountinfo`;

describeWithEngine(`session container mounts${NEEDS_ENGINE}`, () => {
  let workspace: string;
  let extra: string;
  const hosts: DshHost[] = [];
  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-mounts-')));
    extra = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-extra-')));
    mkdirSync(path.join(workspace, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(workspace, '.git', 'config'), CONFIG);
    writeFileSync(path.join(workspace, '.envrc'), 'export A=1\n');
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.dispose()));
    rmSync(workspace, { recursive: true, force: true });
    rmSync(extra, { recursive: true, force: true });
  });

  async function session(container: Partial<ContainerConfig> = {}, sandboxMode: SandboxMode = 'workspace-write', shell: 'oneshot' | 'persistent' = 'oneshot') {
    const host = await createHost(...containerEnvironment({ workspace, shell, sandbox: { mode: sandboxMode }, container: { image: TEST_IMAGE, ...container } }));
    hosts.push(host);
    return host.openSession({ cwd: workspace });
  }

  describe.each(['oneshot', 'persistent'] as const)('protected paths, %s shell', (shell) => {
    it.each([
      ['core.fsmonitor', 'printf "[core]\\n\\tfsmonitor = id\\n" >> .git/config'],
      ['a hook', 'printf "#!/bin/sh\\nid\\n" > .git/hooks/pre-commit'],
      ['mv .git .g; mkdir .git', 'mv .git .g && mkdir .git && echo evil > .git/config'],
      ['.git replaced by a symlink', 'rm -rf .git && ln -s /tmp .git'],
      ['.envrc', 'echo evil >> .envrc'],
      ['writing through ..', 'mkdir -p sub && cd sub && echo evil >> ../.git/config'],
    ])('%s is refused, the host files unchanged, the rest writable', async (_name, command) => {
      const s = await session({}, 'workspace-write', shell);
      const output = await run(s, `${command}; echo "exit $?"; echo ok > plain && cat plain`);
      expect(output).toMatch(/exit [1-9]/);
      expect(output).toMatch(/Read-only file system|Device or resource busy/);
      expect(output).toMatch(/^ok$/m);
      expect(readFileSync(path.join(workspace, '.git', 'config'), 'utf8')).toBe(CONFIG);
      expect(readFileSync(path.join(workspace, '.envrc'), 'utf8')).toBe('export A=1\n');
    });
  });

  it('the prompt names the protected paths (the configured list)', async () => {
    const host = await createHost(...containerEnvironment({ workspace, container: { image: TEST_IMAGE, protectedPaths: ['.git', 'deploy/hooks'] } }));
    hosts.push(host);
    expect(host.prompt().sections.find((s) => s.name === 'sandbox:protected-paths')?.text).toMatch(/^These workspace paths stay read-only even when the workspace is writable, because the host's own tools run what they hold: `\.git`, `deploy\/hooks`\. /);
  });

  it('the server\'s own files in the workspace or a configured mount read as empty', async () => {
    const config = path.join(workspace, 'dsh.yaml');
    const token = path.join(extra, 'token');
    writeFileSync(config, `redact:\n  values: [${SECRET}]\n`);
    writeFileSync(token, `${SECRET}\n`);
    hideServerFile(config);
    hideServerFile(token);
    try {
      const s = await session({ mounts: [`${extra}:/secrets:ro`] });
      const output = await run(s, `cat ${config} /secrets/token; wc -c < ${config}; echo "exit $?"`);
      expect(output).not.toContain(SECRET);
      expect(output).toMatch(/^0$/m);
    } finally {
      forgetServerFile(config);
      forgetServerFile(token);
    }
  });

  it('read-only mounts (the workspace, a configured directory) are nosuid,nodev; :ro,noexec adds noexec', async () => {
    const s = await session({ mounts: [`${extra}:/extra:ro`, `${extra}:/extra-noexec:ro,noexec`] }, 'read-only');
    const output = await run(s, mountOptions([workspace, '/extra', '/extra-noexec']));
    const options = Object.fromEntries(output.trim().split('\n').map((line) => line.split(' ') as [string, string]));
    for (const target of [workspace, '/extra', '/extra-noexec']) expect(options[target]?.split(',')).toEqual(expect.arrayContaining(['ro', 'nosuid', 'nodev']));
    expect(options['/extra-noexec']?.split(',')).toContain('noexec');
    expect(options['/extra']?.split(',')).not.toContain('noexec');
  });

  it('writable mounts (the workspace, a configured directory, a file) are nosuid,nodev too, and still writable from inside', async () => {
    const file = path.join(extra, 'notes.txt');
    writeFileSync(file, 'host\n');
    const s = await session({ mounts: [`${extra}:/extra-rw`, `${file}:/notes.txt`] }, 'workspace-write');
    const output = await run(s, `${mountOptions([workspace, '/extra-rw', '/notes.txt'])}; echo in > ${workspace}/w; echo in > /extra-rw/w; echo in >> /notes.txt`);
    const options = Object.fromEntries(output.trim().split('\n').map((line) => line.split(' ') as [string, string]));
    for (const target of [workspace, '/extra-rw', '/notes.txt']) expect(options[target]?.split(',')).toEqual(expect.arrayContaining(['rw', 'nosuid', 'nodev']));
    expect(readFileSync(path.join(workspace, 'w'), 'utf8')).toBe('in\n');
    expect(readFileSync(path.join(extra, 'w'), 'utf8')).toBe('in\n');
    expect(readFileSync(file, 'utf8')).toBe('host\nin\n');
  });

  it('a setuid-root binary placed from the host gives no euid 0 to a non-root user, even with no-new-privileges off', async () => {
    const suid = path.join(workspace, 'suid-id');
    copyFileSync('/usr/bin/id', suid);
    chownSync(suid, 0, 0);
    chmodSync(suid, 0o4755);
    chmodSync(workspace, 0o755);
    // Both workspaces are nosuid: the mount holds although no-new-privileges was switched off.
    for (const mode of ['read-only', 'workspace-write'] as const) {
      const s = await session({ user: '1000:1000', noNewPrivileges: false }, mode);
      expect((await run(s, `${suid} -u; ${suid} -ru`)).trim().split('\n')).toEqual(['1000', '1000']);
    }
  });

  it('no staging point of this server is left on the host once its session is up', async () => {
    await session({}, 'workspace-write');
    // Other suites' servers may be staging right now: only this process's points (named after its pid) count.
    const mine = `/run/dsh-tools/staging/${process.pid}-`;
    expect(readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((line) => line.includes(mine))).toEqual([]);
    const staging = '/run/dsh-tools/staging';
    expect((existsSync(staging) ? readdirSync(staging) : []).filter((entry) => entry.startsWith(`${process.pid}-`))).toEqual([]);
  });
});
