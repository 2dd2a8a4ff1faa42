// The SIGKILL watchdog (src/providers/exec/process/reaper-watchdog.ts) is one per
// process: it outlives no host. While any host is open it runs; the last
// host's dispose() resolves only once it has exited; the next command of a
// new host starts a new one. (That it still reaps after a SIGKILL of the
// server: test/e2e/server-sigkill.test.ts.)
import { createHost, localEnvironment, type DshHost } from '../../../../src/index.js';
import { reaperWatchdogPid } from '../../../../src/providers/exec/process/reaper-watchdog.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function hostThatRan(): Promise<DshHost> {
  const host = await createHost(...localEnvironment({ workspace: '/tmp' }));
  const result = await host.openSession({ cwd: '/tmp' }).call('bash', { command: 'echo ran', description: 'Run' });
  expect(result.content[0]!.text).toBe('ran');
  return host;
}

it('runs while a host is open, and has exited when the last host is disposed', async () => {
  const first = await hostThatRan();
  const second = await hostThatRan();
  const pid = reaperWatchdogPid();
  expect(pid).toBeDefined();
  expect(alive(pid!)).toBe(true);

  await first.dispose();
  expect(reaperWatchdogPid()).toBe(pid);
  expect(alive(pid!)).toBe(true);

  await second.dispose();
  expect(reaperWatchdogPid()).toBeUndefined();
  expect(alive(pid!)).toBe(false);
});

it('a host created after that starts a new watchdog with its first command, stopped again by its dispose', async () => {
  const host = await hostThatRan();
  const pid = reaperWatchdogPid();
  expect(pid).toBeDefined();
  expect(alive(pid!)).toBe(true);
  await host.dispose();
  expect(alive(pid!)).toBe(false);
});

it('a second dispose of the same host releases nothing twice', async () => {
  const kept = await hostThatRan();
  const disposed = await createHost(...localEnvironment({ workspace: '/tmp' }));
  await disposed.dispose();
  await disposed.dispose();
  const pid = reaperWatchdogPid();
  expect(pid).toBeDefined();
  expect(alive(pid!)).toBe(true);
  await kept.dispose();
  expect(alive(pid!)).toBe(false);
});
