/** The warm-pool figure of both engines: a new session's first call with the pool full, against a cold start. */
import type { createHost } from '../dist/index.js';
import { timeOnce } from './stats.js';

type Host = Awaited<ReturnType<typeof createHost>>;

const args = { command: 'true', description: 'Do nothing' };

/** A new session's first call and its dispose, timed on the call alone. */
async function firstCall(host: Host): Promise<number> {
  const session = host.openSession({ cwd: process.cwd() });
  const took = await timeOnce(() => session.call('bash', args));
  await session.dispose();
  return took;
}

/** `runs` first calls on `pooled` (each once `poolReady` says the pool is full again) and on `cold`, alternately. */
export async function firstCallTimes(pooled: Host, cold: Host, runs: number, poolReady: () => Promise<void>): Promise<{ subject: number[]; baseline: number[] }> {
  const subject: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) {
    await poolReady();
    subject.push(await firstCall(pooled));
    baseline.push(await firstCall(cold));
  }
  return { subject, baseline };
}
