import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BwrapSandboxProvider } from '../../../../src/providers/backends/bwrap/bwrap-sandbox-provider.js';
import { resolveSandboxConfig } from '../../../../src/providers/backends/bwrap/sandbox-config.js';
import { tempWorkspace } from '../../../support/sandbox-test-kit.js';
import { bwrapUsable, NEEDS_BWRAP } from '../../../support/bwrap.js';

const ARGV = ['bash', '-c', 'echo hi'];

/** The bwrap command line inside the host-side prelude (`/bin/sh -c PRELUDE … -- bwrap …`). */
function bwrapPart(argv: string[]): string[] {
  return argv.slice(argv.indexOf('bwrap'));
}

/** The flag pairs/triples that follow `flag` in `argv`. */
function operands(argv: string[], flag: string, arity: number): string[][] {
  const found: string[][] = [];
  argv.forEach((arg, i) => {
    if (arg === flag) found.push(argv.slice(i + 1, i + 1 + arity));
  });
  return found;
}

describe('BwrapSandboxProvider.wrap', () => {
  const provider = new BwrapSandboxProvider();

  it('read-only: read-only root, read-only /tmp and /dev (only device nodes writable), private /proc, no write binds', () => {
    const wrapped = provider.wrap(ARGV, { mode: 'read-only', workspaceRoot: '/work/ws' });
    expect(wrapped[0]).toBe('/bin/sh');
    const argv = bwrapPart(wrapped);
    expect(argv[0]).toBe('bwrap');
    expect(argv.slice(-4)).toEqual(['--', ...ARGV]);
    expect(argv).toEqual(expect.arrayContaining(['--die-with-parent', '--unshare-pid']));
    // Besides the root, only the kernel's own files are bound (read-only over themselves, or /dev/null over them).
    expect(operands(argv, '--ro-bind', 2).filter(([from, to]) => from !== to && from !== '/dev/null')).toEqual([]);
    expect(operands(argv, '--ro-bind', 2)[0]).toEqual(['/', '/']);
    expect(operands(argv, '--bind', 2)).toEqual([]);
    expect(operands(argv, '--remount-ro', 1).slice(0, 2)).toEqual([['/tmp'], ['/dev']]);
    // No --new-session: the command must stay in the executor's process group.
    expect(argv).not.toContain('--new-session');
    expect(argv).not.toContain('--unshare-net');
  });

  it('item 1: drops every capability, so commands of a root server cannot remount the binds', () => {
    const argv = provider.wrap(ARGV, { mode: 'read-only', workspaceRoot: '/work/ws' });
    expect(operands(argv, '--cap-drop', 1)).toEqual([['ALL']]);
    expect(provider.isDenial('mount: /: permission denied.\n')).toBe(true);
    expect(provider.isDenial('mount: /: must be superuser to use mount.\n')).toBe(true);
  });

  it('item 3: the session\'s private temp dir at /tmp, never the host /tmp; a fresh tmpfs without one', () => {
    const own = provider.wrap(ARGV, { mode: 'workspace-write', workspaceRoot: '/work/ws', privateTmp: '/tmp/own' });
    expect(operands(own, '--bind', 2)).toEqual([
      ['/tmp/own', '/tmp'],
      ['/work/ws', '/work/ws'],
    ]);
    const none = provider.wrap(ARGV, { mode: 'workspace-write', workspaceRoot: '/work/ws' });
    expect(operands(none, '--tmpfs', 1)).toContainEqual(['/tmp']);
    expect(operands(none, '--bind', 2)).not.toContainEqual(['/tmp', '/tmp']);
  });

  it('item 4: readable paths are bound read-only at the same path, after the temp mounts', () => {
    const argv = provider.wrap(ARGV, { mode: 'read-only', workspaceRoot: '/work/ws', privateTmp: '/tmp/own', readable: ['/tmp/spill/s-1'] });
    expect(operands(argv, '--ro-bind-try', 2)).toEqual([['/tmp/spill/s-1', '/tmp/spill/s-1']]);
    expect(argv.indexOf('--ro-bind-try')).toBeGreaterThan(argv.indexOf('/tmp/own'));
  });

  it('workspace-write: binds the root writable, before /dev and /proc are mounted', () => {
    const argv = provider.wrap(ARGV, { mode: 'workspace-write', workspaceRoot: '/work/ws' });
    expect(operands(argv, '--bind', 2)).toEqual([['/work/ws', '/work/ws']]);
    expect(argv.lastIndexOf('--bind')).toBeLessThan(argv.indexOf('--dev'));
    expect(() => provider.wrap(ARGV, { mode: 'workspace-write', workspaceRoot: 'relative' })).toThrow(/absolute path/);
  });

  it('danger-full-access: the argv unchanged', () => {
    expect(provider.wrap(ARGV, { mode: 'danger-full-access', workspaceRoot: '/' })).toEqual(ARGV);
  });

  it('network: false unshares the network namespace', () => {
    const argv = new BwrapSandboxProvider({ network: false }).wrap(ARGV, { mode: 'read-only', workspaceRoot: '/' });
    expect(argv).toContain('--unshare-net');
  });

  it('item 5: network: false also masks the runtime dirs and removes SSH_AUTH_SOCK', () => {
    const argv = new BwrapSandboxProvider({ network: false }).wrap(ARGV, { mode: 'read-only', workspaceRoot: '/' });
    expect(operands(argv, '--tmpfs', 1)).toContainEqual(['/run']);
    expect(operands(argv, '--unsetenv', 1)).toEqual([['SSH_AUTH_SOCK']]);
    expect(operands(provider.wrap(ARGV, { mode: 'read-only', workspaceRoot: '/' }), '--unsetenv', 1)).toEqual([]);
  });

  it('recognises the EROFS denial signature only', () => {
    expect(provider.isDenial("touch: cannot touch '/x': Read-only file system\n")).toBe(true);
    expect(provider.isDenial('touch: cannot touch /x: Permission denied\n')).toBe(false);
  });
});

describe('BwrapSandboxProvider.unavailableReason', () => {
  it(`is null where bwrap works${NEEDS_BWRAP}`, () => {
    if (!bwrapUsable) return expect(new BwrapSandboxProvider().unavailableReason()).toMatch(/bubblewrap|bwrap/);
    expect(new BwrapSandboxProvider().unavailableReason()).toBeNull();
  });

  it('tells to install bubblewrap when the binary is missing', () => {
    const reason = new BwrapSandboxProvider({ bwrapPath: '/nonexistent/bwrap' }).unavailableReason();
    expect(reason).toBe('/nonexistent/bwrap was not found; install the bubblewrap package');
  });

  it('item 7: a binary that exits 0 without confining (/bin/true) does not pass the probe', () => {
    expect(new BwrapSandboxProvider({ bwrapPath: '/bin/true' }).unavailableReason()).toBe(
      '/bin/true did not confine a trial command (the canary did not run inside it)',
    );
  });

  it('item 7: a wrapper that runs the command unconfined does not pass the probe', () => {
    const dir = tempWorkspace('dsh-fake-bwrap-');
    try {
      const fake = path.join(dir.dir, 'bwrap');
      // Skips every flag up to `--` and runs the command on the host, as a careless shim would.
      writeFileSync(fake, '#!/bin/bash\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n');
      chmodSync(fake, 0o755);
      expect(new BwrapSandboxProvider({ bwrapPath: fake }).unavailableReason()).toBe(
        `${fake} did not confine a trial command (no private PID namespace)`,
      );
    } finally {
      dir.remove();
    }
  });

  it('gives the stderr of a failing trial run, asks a failure once more, then holds it', () => {
    const dir = tempWorkspace('dsh-fake-bwrap-');
    try {
      const count = path.join(dir.dir, 'count');
      const fake = path.join(dir.dir, 'bwrap');
      writeFileSync(fake, `#!/bin/sh\necho probe >> ${count}\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n`);
      chmodSync(fake, 0o755);
      const provider = new BwrapSandboxProvider({ bwrapPath: fake });
      const reason = provider.unavailableReason();
      expect(reason).toContain('bwrap: No permissions to create new namespace');
      expect(provider.unavailableReason()).toBe(reason);
      expect(readFileSync(count, 'utf8')).toBe('probe\nprobe\n');
    } finally {
      dir.remove();
    }
  });

  it(`does not keep a probe failure that a second probe does not repeat (a mount changing mid-probe)${NEEDS_BWRAP}`, () => {
    if (!bwrapUsable) return;
    const dir = tempWorkspace('dsh-flaky-bwrap-');
    try {
      const count = path.join(dir.dir, 'count');
      const fake = path.join(dir.dir, 'bwrap');
      // Fails on its first run only, then hands over to the real bwrap.
      writeFileSync(
        fake,
        `#!/bin/sh\nif [ ! -e ${count} ]; then echo once > ${count}; echo 'bwrap: remount: Invalid argument' >&2; exit 1; fi\nexec bwrap "$@"\n`,
      );
      chmodSync(fake, 0o755);
      const provider = new BwrapSandboxProvider({ bwrapPath: fake });
      expect(provider.unavailableReason()).toBeNull();
      expect(readFileSync(count, 'utf8')).toBe('once\n');
    } finally {
      dir.remove();
    }
  });
});

describe('resolveSandboxConfig', () => {
  it('fills defaults and rejects bad values and unknown keys', () => {
    expect(resolveSandboxConfig()).toEqual({
      mode: 'read-only',
      network: true,
      bwrapPath: 'bwrap',
      limits: { processes: 2048, memory: '4g', openFiles: 8192 },
      protectedPaths: ['.git', '.envrc', '.vscode'],
    });
    expect(resolveSandboxConfig({ protectedPaths: ['./node_modules/.bin/', '.git', '.git'] }).protectedPaths).toEqual(['node_modules/.bin', '.git']);
    for (const bad of [['/etc'], ['../x'], ['a/../b'], [''], 'x', [1]]) {
      expect(() => resolveSandboxConfig({ protectedPaths: bad as never })).toThrow('invalid sandbox config: protectedPaths ');
    }
    expect(resolveSandboxConfig({ fallbackRoot: 'rel' }).fallbackRoot).toBe(path.resolve('rel'));
    expect(() => resolveSandboxConfig({ mode: 'none' as never })).toThrow('invalid sandbox config: mode must be one of');
    expect(() => resolveSandboxConfig({ network: 'no' as never })).toThrow('invalid sandbox config: network');
    expect(() => resolveSandboxConfig({ modes: 'x' } as never)).toThrow('invalid sandbox config: modes is not a known key');
  });
});
