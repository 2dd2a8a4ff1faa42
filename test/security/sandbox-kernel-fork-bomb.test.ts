// Issue 18 row 5: one sandboxed call forking without bound. Before the fix the host's process count
// followed it up (148 → 2,161 for 2,000 processes) and nothing told the model what happened.
import { readdirSync, readFileSync } from 'node:fs';
import { detectCgroupLayout } from '../../src/providers/backends/bwrap/cgroup-layout.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts, SHELLS } from './support/sandbox-kernel-hosts.js';
import { waitUntil } from '../support/process-table.js';

const LIMIT = 200;
/** The classic bomb, ended by the command itself after a while so the persistent shell survives it. */
const BOMB = "bash -c 'b() { b | b & }; b; sleep 3; kill -KILL 0'";

function hostProcesses(): number {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
}

/** The bomb's processes still on the host (by their command line). */
function bombPids(): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('b | b &');
      } catch {
        return false;
      }
    });
}

/** What is left of the bomb, for a failure message: each survivor's state and parent. */
function bombSurvivors(): string {
  return bombPids()
    .map((pid) => {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ');
        return `${pid}:${fields[0]} ppid ${fields[1]}`;
      } catch {
        return `${pid}:gone`;
      }
    })
    .join(', ');
}

const withPids = detectCgroupLayout().pids !== undefined ? describeWithBwrap : describe.skip;

withPids(`sandbox kernel: a fork bomb in one call${NEEDS_BWRAP}${detectCgroupLayout().pids ? '' : ' (skipped: needs a writable pids cgroup)'}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  it.each(SHELLS)('%s shell: the call ends with the process-limit marker, the host count stays bounded, another session still answers', async (shell) => {
    const { host, session } = await hosts.session(shell, 'workspace-write', { sandbox: { limits: { processes: LIMIT } } });
    const other = host.openSession({ cwd: (await hosts.session(shell, 'workspace-write')).workspace });
    const baseline = hostProcesses();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, hostProcesses());
    }, 20);
    try {
      const bombing = bash(session, BOMB);
      // Asked while the bomb runs: the other session's call answers.
      expect(await bash(other, 'echo alive')).toBe('alive');
      const out = await bombing;
      expect(out).toContain(`[resource limit: the command reached the sandbox's process limit (${LIMIT})]`);
      // The marker sits just before the exit/signal line.
      const lines = out.split('\n');
      const at = lines.indexOf(`[resource limit: the command reached the sandbox's process limit (${LIMIT})]`);
      expect(lines.slice(at + 1).every((line) => /^\[(exit code|killed by signal|shell)/.test(line))).toBe(true);
    } finally {
      clearInterval(sampler);
    }
    // The bomb's processes plus a margin for the rest of a busy machine.
    expect(peak - baseline).toBeLessThan(LIMIT + 150);
    // Once the bomb's processes are gone (killed ones count against the limit until reaped), the shell answers.
    await waitUntil(() => bombPids().length === 0, "the bomb's processes are gone").catch((error: Error) => {
      throw new Error(`${error.message}; left: ${bombSurvivors()}`);
    });
    expect(await bash(session, 'echo after')).toBe('after');
    // Above the sum of its own bounds (the bomb's 3 s, the 20 s wait for its processes): a step that fails names itself.
  }, 60_000);

  it('a call that stays under the limit gets no marker', async () => {
    const { session } = await hosts.session('oneshot', 'workspace-write', { sandbox: { limits: { processes: LIMIT } } });
    const out = await bash(session, 'for i in 1 2 3 4 5 6 7 8; do sleep 0.2 & done; wait; echo ok');
    expect(out).toBe('ok');
  });
});
