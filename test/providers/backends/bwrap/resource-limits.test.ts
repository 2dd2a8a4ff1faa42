import { detectCgroupLayout, type CgroupSources } from '../../../../src/providers/backends/bwrap/cgroup-layout.js';
import { resolveSandboxConfig } from '../../../../src/providers/backends/bwrap/sandbox-config.js';
import { preludeArgv } from '../../../../src/providers/backends/bwrap/sandbox-prelude.js';
import { validateConfig } from '../../../../src/plugins/config/config-file.js';

describe('sandbox.limits config', () => {
  it('fills each missing key from the defaults and keeps the memory size as written', () => {
    expect(resolveSandboxConfig({ limits: { processes: 100 } as never }).limits).toEqual({ processes: 100, memory: '4g', openFiles: 8192 });
    expect(resolveSandboxConfig({ limits: { memory: 536870912 } as never }).limits.memory).toBe('536870912');
    expect(resolveSandboxConfig({ limits: { memory: '512M' } as never }).limits.memory).toBe('512M');
  });

  it.each([
    [{ processes: 0 }, 'limits.processes must be a whole number from 16'],
    [{ processes: 2.5 }, 'limits.processes must be a whole number'],
    [{ openFiles: 'many' }, 'limits.openFiles must be a whole number from 64'],
    [{ memory: '2x' }, 'limits.memory must be a size of at least 64m'],
    [{ memory: '1m' }, 'limits.memory must be a size of at least 64m'],
    [{ cpus: 2 }, 'limits.cpus is not a known key'],
    ['lots', 'limits must be an object'],
  ])('rejects %j with a clear error', (limits, message) => {
    expect(() => resolveSandboxConfig({ limits } as never)).toThrow(`invalid sandbox config: ${message}`);
  });

  it('the --config file checks the same keys', () => {
    expect(validateConfig({ sandbox: { limits: { processes: 512, memory: '2g', openFiles: 4096 } } }, 'c.yaml').sandbox).toBeDefined();
    expect(() => validateConfig({ sandbox: { limits: { processes: -1 } } }, 'c.yaml')).toThrow('c.yaml: sandbox.limits: limits.processes must be');
  });
});

describe('the host-side prelude', () => {
  it('sets the rlimits, joins the cgroups in order, then execs the rest with the filter on fd 9', () => {
    const argv = preludeArgv({ filterFile: '/f.bpf', cgroupProcs: ['/cg/a/cgroup.procs'], openFiles: 100, dataBytes: 2048 }, ['bwrap', '--seccomp', '9']);
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv.slice(3)).toEqual(['dsh-sandbox', '/f.bpf', 'nofile=100', 'data=2', '/cg/a/cgroup.procs', '--', 'bwrap', '--seccomp', '9']);
    expect(argv[2]).toContain('exec "$@" 9<"$f"');
  });
});

describe('cgroup layout detection', () => {
  const v1Mounts = [
    '30 25 0:26 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
    '31 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
    '32 25 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  ].join('\n');
  const sources = (over: Partial<CgroupSources>): CgroupSources => ({
    mountinfo: v1Mounts,
    ownCgroups: '8:pids:/\n4:memory:/svc/a\n0::/\n',
    writable: () => true,
    read: () => undefined,
    ...over,
  });

  it('v1 as root: the server\'s own cgroup under each controller\'s mount', () => {
    expect(detectCgroupLayout(sources({}))).toEqual({
      pids: { version: 1, dir: '/sys/fs/cgroup/pids' },
      memory: { version: 1, dir: '/sys/fs/cgroup/memory/svc/a' },
    });
  });

  it('v2: only where the server\'s cgroup enables the controllers for its children', () => {
    const v2 = { mountinfo: '40 25 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw', ownCgroups: '0::/user.slice/dsh\n' };
    expect(detectCgroupLayout(sources({ ...v2, read: () => 'cpu memory pids\n' }))).toEqual({
      pids: { version: 2, dir: '/sys/fs/cgroup/user.slice/dsh' },
      memory: { version: 2, dir: '/sys/fs/cgroup/user.slice/dsh' },
    });
    expect(detectCgroupLayout(sources({ ...v2, read: () => 'cpu\n' }))).toEqual({});
  });

  it('nothing writable: no cgroups (the rlimits are all there is)', () => {
    expect(detectCgroupLayout(sources({ writable: () => false }))).toEqual({});
  });
});
