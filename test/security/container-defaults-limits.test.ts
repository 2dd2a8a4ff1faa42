// Attack: a session exhausts the machine — a fork bomb or a memory hog — because its container had
// no pids or memory limit. Now every container has both by default (1024 processes, 4 GiB), and a
// session that hits its limit gets a normal failed command while other sessions keep working.
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { containerHost, run, tool } from './support/container-defaults-kit.js';

/** Forks until refused (perl's fork does not retry like bash's), then reports how many children it got. */
const FORK_BOMB = `${tool('perl')} -e 'my $n = 0; while ($n < 500) { my $p = fork; last unless defined $p; if (!$p) { sleep 60; exit } $n++ } print "spawned $n: $!\\n"; exit 3'`;

describeWithEngine(`container defaults: pids and memory limits${NEEDS_ENGINE}`, () => {
  it('the defaults are in force in the container cgroup: 1024 pids, 4 GiB, no swap beyond it', async () => {
    const { host, dispose } = await containerHost();
    const session = host.openSession({ id: 'limits-default' });
    try {
      const read = (file: string) => `cat /sys/fs/cgroup/${file} 2>/dev/null || echo missing`;
      const output = await run(session, `${read('pids/pids.max')}; ${read('memory/memory.limit_in_bytes')}; ${read('memory/memory.memsw.limit_in_bytes')}`);
      const [pids, memory, withSwap] = output.split('\n');
      expect(Number(pids)).toBe(1024);
      expect(Number(memory)).toBe(4 * 1024 ** 3);
      if (withSwap !== 'missing') expect(Number(withSwap)).toBe(4 * 1024 ** 3);
    } finally {
      await session.dispose();
      await dispose();
    }
  }, 60_000);

  it('a fork bomb in one session fails cleanly and the other session and the server keep answering', async () => {
    const { host, dispose } = await containerHost({ pidsLimit: 64 }, { tools: ['perl'] });
    const bomb = host.openSession({ id: 'limits-bomb' });
    const other = host.openSession({ id: 'limits-other' });
    try {
      expect(await run(other, 'echo ready')).toBe('ready');
      const bombing = run(bomb, FORK_BOMB);
      // While the bomb runs, the other session is served.
      expect(await run(other, 'echo still here')).toBe('still here');
      const result = await bombing;
      expect(result).toMatch(/^spawned \d+: Resource temporarily unavailable\n/);
      expect(Number(/spawned (\d+)/.exec(result)?.[1])).toBeLessThan(64);
      expect(result).toMatch(/\[exit code: 3\]$/);
      expect(await run(bomb, 'echo recovered')).toBe('recovered');
      expect(await run(other, 'echo after')).toBe('after');
    } finally {
      await bomb.dispose();
      await other.dispose();
      await dispose();
    }
  }, 120_000);

  it('a memory hog in one session is killed inside its container; the other session keeps its state', async () => {
    const { host, dispose } = await containerHost({ memory: '64m' }, { shell: 'persistent' });
    const hog = host.openSession({ id: 'limits-hog' });
    const other = host.openSession({ id: 'limits-calm' });
    try {
      await run(other, 'export KEPT=yes');
      const result = await run(hog, 'head -c 400m /dev/zero | tail >/dev/null; echo "status ${PIPESTATUS[1]}"');
      expect(result).toMatch(/status 137/);
      expect(await run(hog, 'echo alive')).toMatch(/^alive/);
      expect(await run(other, 'echo $KEPT')).toMatch(/^yes/);
    } finally {
      await hog.dispose();
      await other.dispose();
      await dispose();
    }
  }, 120_000);
});
