// Leftovers of a command confined in its own PID namespace (real bwrap): the
// namespace ends them with the command, so they are counted in there and
// reported as the unconfined shell reports them, on both spawn paths.
import type { ExecRequest } from '../../../../src/providers/exec/shell/shell-executor.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';
import { pollUntil } from '../../../support/shell-test-kit.js';
import { spawn } from 'node:child_process';
import { LocalSandboxPolicy } from '../../../../src/providers/backends/bwrap/local-sandbox-policy.js';
import { SandboxConfinement } from '../../../../src/providers/backends/bwrap/sandbox-confinement.js';
import { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import { isAlivePid, uniqueSleep } from '../../../support/process-table.js';
import { confinedRig, PassThroughProvider, tempWorkspace, type ConfinedRig } from '../../../support/sandbox-test-kit.js';

describeWithBwrap(`leftovers in the sandbox's PID namespace${NEEDS_BWRAP}`, () => {
  let rig: ConfinedRig;
  beforeEach(() => {
    rig = confinedRig('workspace-write');
  });
  afterEach(() => rig.dispose());
  const run = (request: ExecRequest) => rig.run(request);

  it('counts a background job, a setsid daemon and a double fork, and keeps the exit status', async () => {
    const result = await run({ command: 'sleep 30 & setsid sleep 31 & (sleep 32 &) ; echo started; exit 3' });
    expect(result).toMatchObject({ stdout: 'started\n', stderr: '', exitCode: 3, leftoversKilled: 3 });
  });

  it('counts them the same in a pre-started shell', async () => {
    await run({ command: 'true' });
    expect(await pollUntil(() => rig.executor.prestartedPids.length === 1)).toBe(true);
    const result = await run({ command: 'sleep 30 & echo started' });
    expect(rig.executor.prestartedRuns).toBe(1);
    expect(result).toMatchObject({ stdout: 'started\n', leftoversKilled: 1 });
  });

  it("passes a command's own imitation of the report through as output, uncounted", async () => {
    const fake = '\\037dsh-left:0000000000000000:9\\037';
    const result = await run({ command: `printf '${fake}' >&2` });
    expect(result.stderr).toBe('\x1fdsh-left:0000000000000000:9\x1f');
    expect(result.leftoversKilled).toBeUndefined();
  });

  it('keeps stdin, a signal status and nothing left when the command leaves nothing', async () => {
    expect(await run({ command: 'cat', stdin: 'fed\n' })).toMatchObject({ stdout: 'fed\n', exitCode: 0 });
    const killed = await run({ command: 'kill -9 $$' });
    // The reaper tells a death by signal from `exit 137` (issue 23): the signal, not 128+9.
    expect(killed).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(killed.leftoversKilled).toBeUndefined();
  });
});

describeWithBwrap(`the namespace reaper's reach${NEEDS_BWRAP}`, () => {
  it("kills nothing outside the command's namespace: a process of the same user on the host survives", async () => {
    const host = spawn('sleep', [uniqueSleep()], { stdio: 'ignore' });
    const rig = confinedRig('workspace-write');
    try {
      const result = await rig.run({ command: `kill -0 ${host.pid} 2>/dev/null && echo visible; sleep 30 & echo started` });
      // The host pid is not even visible inside, and the reaper counts only the command's own leftover.
      expect(result).toMatchObject({ stdout: 'started\n', leftoversKilled: 1 });
      expect(isAlivePid(host.pid!)).toBe(true);
    } finally {
      host.kill('SIGKILL');
      await rig.dispose();
    }
  });

  it('is not used for a confinement without a PID namespace of its own: it would see the whole host', async () => {
    const wraps: string[][] = [];
    const provider = new PassThroughProvider(wraps);
    const confinement = new SandboxConfinement(new LocalSandboxPolicy({}), provider, {});
    const executor = new LocalShellExecutor({ prestart: false }, confinement);
    const ws = tempWorkspace();
    try {
      const result = await executor.run(executor.checkRequest({ command: 'echo ran', workdir: ws.dir, confinement: confinement.forSession(undefined, { workspaceRoot: ws.dir }) ?? null }));
      expect(result.stdout).toBe('ran\n');
      expect(wraps[0]![0]).not.toBe('/bin/sh');
    } finally {
      await executor.dispose();
      ws.remove();
    }
  });
});
