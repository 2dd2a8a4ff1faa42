import { spawn } from 'node:child_process';
import { createHost, localEnvironment } from '../dist/index.js';
import { descendants, leftovers, pssMb } from './process-table.js';
import { fmt, median, timeOnce, type Figure } from './stats.js';

const SESSIONS = 20;
const CALLS = 100;
const PAYLOAD = 20_000;

function rawCall(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve(bytes));
  });
}

/** 100 concurrent calls spread over 20 sessions: every byte arrives, against 100 raw spawns; with and without pre-started shells. */
export async function benchConcurrentCalls(runs: number): Promise<Figure[]> {
  return [...(await concurrentCalls(runs, true)), ...(await concurrentCalls(runs, false))];
}

async function concurrentCalls(runs: number, prestart: boolean): Promise<Figure[]> {
  const host = await createHost(...localEnvironment({ workspace: process.cwd(), executor: { prestart } }));
  const command = `head -c ${PAYLOAD} /dev/zero | tr '\\0' 'a'`;
  try {
    const sessions = Array.from({ length: SESSIONS }, () => host.openSession({ cwd: process.cwd() }));
    let lost = 0;
    const tool: number[] = [];
    const raw: number[] = [];
    for (let r = 0; r < runs; r++) {
      // The pre-started shells of the last round start after its results: let them, so they do not slow the baseline.
      await new Promise((resolve) => setTimeout(resolve, 100));
      raw.push(await timeOnce(() => Promise.all(Array.from({ length: CALLS }, () => rawCall(command)))));
      tool.push(
        await timeOnce(async () => {
          const results = await Promise.all(
            Array.from({ length: CALLS }, (_, i) =>
              sessions[i % SESSIONS]!.call('bash', { command, description: 'Print a payload' }),
            ),
          );
          for (const result of results) if (result.content[0]!.text.length !== PAYLOAD) lost += 1;
        }),
      );
    }
    return [
      {
        name: `${CALLS} concurrent calls / ${SESSIONS} sessions${prestart ? '' : ', prestart off'}`,
        value: `${fmt(median(tool))}, ${lost} lost`,
        baseline: `raw spawns ${fmt(median(raw))}`,
        ratio: median(tool) / median(raw),
        goal: prestart ? 'ratio ≤ 1.2, 0 lost bytes' : '(no pre-started shells: what they cost or save in a burst)',
      },
    ];
  } finally {
    await host.dispose();
  }
}

/** 20 sessions × 10 background tasks: all admitted, their total memory, and disposal. */
export async function benchBackgroundTasks(): Promise<Figure[]> {
  const host = await createHost(...localEnvironment({ workspace: process.cwd() }));
  try {
    const sessions = Array.from({ length: SESSIONS }, () => host.openSession({ cwd: process.cwd() }));
    const started = await Promise.all(
      sessions.flatMap((session) =>
        Array.from({ length: 10 }, () =>
          session.call('bash', { command: 'sleep 600', description: 'Wait in the background', run_in_background: true }),
        ),
      ),
    );
    const ok = started.filter((result) => !result.isError).length;
    const pids = descendants();
    const childPss = pids.reduce((sum, pid) => sum + pssMb(pid), 0);
    const disposal = await timeOnce(() => host.dispose());
    const left = leftovers().length;
    return [
      {
        name: `background tasks across ${SESSIONS} sessions`,
        value: `${ok} running, children PSS ${childPss.toFixed(0)} MB`,
        goal: '200 admitted',
      },
      { name: `dispose ${ok} background tasks`, value: `${fmt(disposal)}, ${left} processes left`, goal: '0 left' },
    ];
  } finally {
    await host.dispose();
  }
}
