// The SIGKILL watchdog (src/providers/exec/process/reaper-watchdog.ts) trusts pid
// order in its first second only because it starts before the first command.
// Once a start failed, commands may have run without one, so their carriers'
// pids can be below the next watchdog's: that one reads every pid, even stopped
// within its first second. (Its own suite: the failure stays for the process.)
import { once } from 'node:events';
import { ensureReaperWatchdog, holdReaperWatchdog, reaperWatchdogPid } from '../../../../src/providers/exec/process/reaper-watchdog.js';
import { carrier, hostThatRan } from '../../../support/reaper-watchdog-kit.js';

it('after a failed start, the next watchdog stopped within its first second still kills a carrier older than itself', async () => {
  // A shell that cannot be started: the spawn fails (asynchronously); releasing the hold clears it.
  const release = holdReaperWatchdog();
  ensureReaperWatchdog('/nonexistent/dsh-no-such-shell');
  await release();
  expect(reaperWatchdogPid()).toBeUndefined();

  const early = carrier('early');
  try {
    const exited = once(early, 'exit');
    const host = await hostThatRan();
    expect(early.pid!).toBeLessThan(reaperWatchdogPid()!);
    // Disposed at once (within the watchdog's first second, where an ordered one spares the early carrier).
    await host.dispose();
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
  } finally {
    early.kill('SIGKILL');
  }
});
