import { createHost, localEnvironment } from '../dist/index.js';
import { descendants, leftovers, pssMb } from './process-table.js';
import { fmt, interleaved, timeOnce, type Figure } from './stats.js';

/** Persistent `true` round trip against a one-shot call in the same run. */
export async function benchPersistentRoundTrip(runs: number): Promise<Figure[]> {
  const persistent = await createHost(...localEnvironment({ workspace: process.cwd(), shell: 'persistent' }));
  // The baseline does not pre-start: a refill spawned after each one-shot result would land on the next persistent call.
  const oneshot = await createHost(...localEnvironment({ workspace: process.cwd(), executor: { prestart: false } }));
  try {
    const a = persistent.openSession({ cwd: process.cwd() });
    const b = oneshot.openSession({ cwd: process.cwd() });
    const args = { command: 'true', description: 'Do nothing' };
    const r = await interleaved(runs, () => a.call('bash', args), () => b.call('bash', args));
    return [
      {
        name: 'persistent bash `true` round trip',
        value: fmt(r.subject),
        baseline: `one-shot ${fmt(r.baseline)}`,
        ratio: r.ratio,
        goal: 'median ≤ 3 ms',
      },
    ];
  } finally {
    await Promise.all([persistent.dispose(), oneshot.dispose()]);
  }
}

async function openShells(count: number) {
  const host = await createHost(...localEnvironment({ workspace: process.cwd(), shell: 'persistent' }));
  const sessions = Array.from({ length: count }, () => host.openSession({ cwd: process.cwd() }));
  await Promise.all(sessions.map((session) => session.call('bash', { command: 'true' })));
  return host;
}

/** Memory per open shell with 50 open, and disposing a host with 10 open shells. */
export async function benchShells(): Promise<Figure[]> {
  const fifty = await openShells(50);
  const pids = descendants();
  const perShell = pids.reduce((sum, pid) => sum + pssMb(pid), 0) / 50;
  await fifty.dispose();

  const ten = await openShells(10);
  const disposal = await timeOnce(() => ten.dispose());
  const left = leftovers().length;
  return [
    { name: 'memory per open shell (50 open)', value: `${perShell.toFixed(2)} MB PSS` },
    { name: 'dispose host with 10 open shells', value: `${fmt(disposal)}, ${left} processes left`, goal: '≤ 200 ms' },
  ];
}
