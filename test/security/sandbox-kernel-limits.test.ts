// Issue 18 row 5 (the class): memory and open files of a confined call, and the cgroups' lifecycle.
import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { BwrapSandboxProvider } from '../../src/providers/backends/bwrap/bwrap-sandbox-provider.js';
import { detectCgroupLayout } from '../../src/providers/backends/bwrap/cgroup-layout.js';
import { LocalSandboxPolicy } from '../../src/providers/backends/bwrap/local-sandbox-policy.js';
import { SandboxConfinement } from '../../src/providers/backends/bwrap/sandbox-confinement.js';
import { LocalShellExecutor } from '../../src/providers/backends/local/local-shell-executor.js';
import { pollUntil } from '../support/shell-test-kit.js';
import { tempWorkspace } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts, SHELLS } from './support/sandbox-kernel-hosts.js';

const layout = detectCgroupLayout();
const withCgroups = layout.pids && layout.memory ? describeWithBwrap : describe.skip;
/** This server's groups (`dsh-sandbox-<pid>-<n>`) under each controller's parent. */
const ownGroups = (): string[] =>
  [layout.pids?.dir, layout.memory?.dir].flatMap((dir) => (dir ? readdirSync(dir).filter((name) => name.startsWith(`dsh-sandbox-${process.pid}-`)) : []));

withCgroups(`sandbox kernel: memory and open-file limits, cgroup cleanup${NEEDS_BWRAP}${layout.pids && layout.memory ? '' : ' (skipped: needs writable pids and memory cgroups)'}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  it.each(SHELLS)('%s shell: an allocation past the memory limit is killed and the call says which limit it hit', async (shell) => {
    const { session } = await hosts.session(shell, 'workspace-write', { sandbox: { limits: { memory: '96m' } } });
    const out = await bash(session, `perl -e '$x = "a" x (400 * 1024 * 1024); print "survived\\n"'; echo status=$?`);
    expect(out.split('\n')).not.toContain('survived');
    expect(out).toContain("[resource limit: the command reached the sandbox's memory limit (96m)]");
    expect(await bash(session, 'echo after')).toBe('after');
  });

  it.each(SHELLS)('%s shell: open files stop at the configured limit with EMFILE, and the command cannot raise it', async (shell) => {
    const { session } = await hosts.session(shell, 'workspace-write', { sandbox: { limits: { openFiles: 100 } } });
    const out = await bash(session, `ulimit -n 4096 2>/dev/null; ulimit -n; perl -e 'for (1..200) { open(my $f, "<", "/dev/null") or do { print "stopped errno=", $! + 0, "\\n"; exit }; push @k, $f } print "all open\\n"'`);
    expect(out.split('\n')).toEqual(['100', 'stopped errno=24']);
  });

  it('a call run by a pre-started one-shot shell reads the marker from that shell\'s group', async () => {
    const ws = tempWorkspace('dsh-kernel-');
    const config = { mode: 'workspace-write' as const, limits: { processes: 64, memory: '4g', openFiles: 8192 } };
    const confinement = new SandboxConfinement(new LocalSandboxPolicy({}), new BwrapSandboxProvider(config), config);
    const executor = new LocalShellExecutor({ cwd: ws.dir, graceMs: 200 }, confinement);
    const run = (command: string) => executor.run(executor.checkRequest({ command, confinement: confinement.forSession(undefined, { workspaceRoot: ws.dir }) ?? null }));
    try {
      await run('true');
      expect(await pollUntil(() => executor.prestartedPids.length === 1)).toBe(true);
      const result = await run('for i in $(seq 100); do sleep 5 & done; wait');
      expect(executor.prestartedRuns).toBe(1);
      expect(result.limitsReached).toEqual([{ kind: 'processes', limit: '64' }]);
    } finally {
      await executor.dispose();
      await confinement.dispose();
      ws.remove();
    }
    expect(ownGroups()).toEqual([]);
  });

  it('no group is left once a call has ended, a persistent shell has closed and the host is disposed', async () => {
    const one = await hosts.session('oneshot', 'workspace-write');
    await bash(one.session, 'echo hi');
    const persistent = await hosts.session('persistent', 'workspace-write');
    await bash(persistent.session, 'echo hi');
    await hosts.disposeAll();
    expect(ownGroups()).toEqual([]);
  });

  it('groups a killed server left behind are removed by the next server\'s first call', async () => {
    // A pid that is not running: the highest possible one is all but never in use.
    const stale = [layout.pids!.dir, layout.memory!.dir].map((dir) => path.join(dir, 'dsh-sandbox-4194304-1'));
    for (const dir of stale) mkdirSync(dir);
    try {
      const { session } = await hosts.session('oneshot', 'workspace-write');
      await bash(session, 'echo hi');
      expect(stale.filter((dir) => existsSync(dir))).toEqual([]);
    } finally {
      for (const dir of stale) if (existsSync(dir)) rmdirSync(dir);
    }
  });
});
