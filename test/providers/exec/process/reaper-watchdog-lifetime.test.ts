// The SIGKILL watchdog (src/providers/exec/process/reaper-watchdog.ts) is one per
// process: it outlives no host. While any host is open it runs; the last
// host's dispose() resolves only once it has exited; the next command of a
// new host starts a new one. (That it still reaps after a SIGKILL of the
// server: test/e2e/server-sigkill.test.ts.)
import { createHost, localEnvironment } from '../../../../src/index.js';
import { reaperWatchdogPid } from '../../../../src/providers/exec/process/reaper-watchdog.js';
import { hostThatRan, isAlivePid } from '../../../support/reaper-watchdog-kit.js';

it('runs while a host is open, and has exited when the last host is disposed', async () => {
  const first = await hostThatRan();
  const second = await hostThatRan();
  const pid = reaperWatchdogPid();
  expect(pid).toBeDefined();
  expect(isAlivePid(pid!)).toBe(true);

  await first.dispose();
  expect(reaperWatchdogPid()).toBe(pid);
  expect(isAlivePid(pid!)).toBe(true);

  await second.dispose();
  expect(reaperWatchdogPid()).toBeUndefined();
  expect(isAlivePid(pid!)).toBe(false);
});

it('a host created after that starts a new watchdog with its first command, stopped again by its dispose', async () => {
  const host = await hostThatRan();
  const pid = reaperWatchdogPid();
  expect(pid).toBeDefined();
  expect(isAlivePid(pid!)).toBe(true);
  await host.dispose();
  expect(isAlivePid(pid!)).toBe(false);
});

it('a second dispose of the same host releases nothing twice', async () => {
  const kept = await hostThatRan();
  const disposed = await createHost(...localEnvironment({ workspace: '/tmp' }));
  await disposed.dispose();
  await disposed.dispose();
  const pid = reaperWatchdogPid();
  expect(pid).toBeDefined();
  expect(isAlivePid(pid!)).toBe(true);
  await kept.dispose();
  expect(isAlivePid(pid!)).toBe(false);
});
