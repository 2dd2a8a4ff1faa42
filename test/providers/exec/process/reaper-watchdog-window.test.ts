// The SIGKILL watchdog (src/providers/exec/process/reaper-watchdog.ts) stopped
// within a second of its start reads only the pids above its own (every carrier
// of the tag started after it, and pids are handed out in order); later it reads
// every pid. Both are seen here through a carrier the test starts itself.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { reaperWatchdogPid } from '../../../../src/providers/exec/process/reaper-watchdog.js';
import { carrier, hostThatRan, isAlivePid } from '../../../support/reaper-watchdog-kit.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

it('stopped within its first second, it kills a carrier started after it', async () => {
  const host = await hostThatRan();
  const watchdog = reaperWatchdogPid()!;
  const late = carrier('late');
  started.push(late);
  const exited = once(late, 'exit');
  expect(late.pid!).toBeGreaterThan(watchdog);
  await host.dispose();
  const [code, signal] = await exited;
  expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
});

it('reads only the pids above its own in that second, and every pid after it', async () => {
  // Older than the watchdog: no command's process can be (the watchdog starts before the first).
  const early = carrier('early');
  started.push(early);
  const first = await hostThatRan();
  expect(early.pid!).toBeLessThan(reaperWatchdogPid()!);
  await first.dispose();
  expect(isAlivePid(early.pid!)).toBe(true);

  const second = await hostThatRan();
  const startedAt = Date.now();
  const exited = once(early, 'exit');
  // The window is the watchdog's first second: wait it out.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_200 - (Date.now() - startedAt))));
  await second.dispose();
  const [code, signal] = await exited;
  expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
});
