// Container execution figures (issue: every session's commands in its own container).
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost, containerEnvironment, DockerContainerEngine, LABELS, localEnvironment } from '../dist/index.js';
import { SessionContainersToken } from '../dist/providers/exec/engine/session-containers.js';
import { fmt, interleaved, median, timeOnce, type Figure } from './stats.js';
import { rawSpawn } from './raw-spawn.js';
import { firstCallTimes } from './warm-pool.js';

const IMAGE = 'dsh-tools-test:latest';
const run = promisify(execFile);
const args = { command: 'true', description: 'Do nothing' };

/** Null when the engine answers and the test image exists (built from this machine's binaries); else why not. */
async function unavailable(): Promise<string | null> {
  try {
    await new DockerContainerEngine().info();
  } catch (error) {
    return (error as Error).message;
  }
  const script = path.resolve('test/support/container-image.sh');
  return spawnSync('bash', [script, IMAGE], { stdio: 'ignore' }).status === 0 ? null : 'could not build the test image';
}

const environment = (shell: 'oneshot' | 'persistent' = 'oneshot', channel = true) =>
  containerEnvironment({ workspace: process.cwd(), shell, container: { image: IMAGE, channel } });

export async function benchContainers(): Promise<Figure[]> {
  const why = await unavailable();
  if (why !== null) return [{ name: 'container suite', value: `skipped: no container engine (${why})` }];
  return [
    await firstResult(5),
    await oneShotVsCli(30),
    ...(await channelVsLocalSpawn(30)),
    await concurrentInOneSession(5),
    await persistentRoundTrip(100),
    await twentySessions(),
    await sigkillToNoContainer(),
  ];
}

async function firstResult(runs: number): Promise<Figure> {
  const host = await createHost(...environment());
  try {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const session = host.openSession({ cwd: process.cwd() });
      times.push(await timeOnce(() => session.call('bash', args)));
      await session.dispose();
    }
    return { name: 'container creation to first result (`true`)', value: fmt(median(times)) };
  } finally {
    await host.dispose();
  }
}

async function oneShotVsCli(runs: number): Promise<Figure> {
  const host = await createHost(...environment());
  try {
    const session = host.openSession({ id: 'bench-cli', cwd: process.cwd() });
    await session.call('bash', args);
    const [container] = await new DockerContainerEngine().list([`${LABELS.session}=bench-cli`]);
    const r = await interleaved(
      runs,
      () => session.call('bash', args),
      () => run('docker', ['exec', container!.id, 'bash', '-c', 'true']),
      3,
    );
    return { name: 'one-shot `true` in a container', value: fmt(r.subject), baseline: `docker exec CLI ${fmt(r.baseline)}`, ratio: r.ratio, goal: 'faster than the CLI' };
  } finally {
    await host.dispose();
  }
}

/**
 * Issue 32: a one-shot `true` in a session container, through the session's
 * channel and as an engine exec, each against a raw local spawn by the
 * server (`bash -c true`) interleaved in the same run.
 */
async function channelVsLocalSpawn(runs: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const channel of [true, false]) {
    const host = await createHost(...environment('oneshot', channel));
    try {
      const session = host.openSession({ cwd: process.cwd() });
      await session.call('bash', args);
      if (channel && !(await host.get(SessionContainersToken).channelReady(session))) throw new Error('the channel did not start');
      const r = await interleaved(runs, () => session.call('bash', args), () => rawSpawn('true'), 3);
      figures.push({
        name: `one-shot \`true\` in a container, ${channel ? 'through the channel' : 'engine exec per call'}`,
        value: fmt(r.subject),
        baseline: `local raw spawn ${fmt(r.baseline)}`,
        ratio: r.ratio,
        goal: channel ? '≤ 3×' : 'before the channel',
      });
    } finally {
      await host.dispose();
    }
  }
  return figures;
}

/** Issue 32: 100 concurrent one-shot calls in one container session against the same calls in one local session, rounds alternating. */
async function concurrentInOneSession(rounds: number): Promise<Figure> {
  const container = await createHost(...environment());
  const local = await createHost(...localEnvironment({ workspace: process.cwd() }));
  try {
    const inContainer = container.openSession({ cwd: process.cwd() });
    const inLocal = local.openSession({ cwd: process.cwd() });
    await inContainer.call('bash', args);
    if (!(await container.get(SessionContainersToken).channelReady(inContainer))) throw new Error('the channel did not start');
    const burst = async (session: typeof inLocal): Promise<number> => {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => session.call('bash', { command: `echo ${i}`, description: 'Echo' })));
      const lost = results.filter((result, i) => result.content.map((block) => ('text' in block ? block.text : '')).join('') !== String(i)).length;
      if (lost > 0) throw new Error(`${lost} of 100 concurrent calls lost their output`);
      return 0;
    };
    const r = await interleaved(rounds, () => burst(inContainer), () => burst(inLocal), 1);
    return { name: '100 concurrent one-shot calls, one container session (channel)', value: `${fmt(r.subject)}, 0 lost`, baseline: `one local session ${fmt(r.baseline)}`, ratio: r.ratio, goal: '≤ 1.5×' };
  } finally {
    await Promise.all([container.dispose(), local.dispose()]);
  }
}

async function persistentRoundTrip(runs: number): Promise<Figure> {
  const persistent = await createHost(...environment('persistent'));
  const oneshot = await createHost(...environment());
  try {
    const a = persistent.openSession({ cwd: process.cwd() });
    const b = oneshot.openSession({ cwd: process.cwd() });
    const r = await interleaved(runs, () => a.call('bash', args), () => b.call('bash', args));
    return { name: 'persistent `true` round trip in a container', value: fmt(r.subject), baseline: `container one-shot ${fmt(r.baseline)}`, ratio: r.ratio, goal: 'median ≤ 3 ms' };
  } finally {
    await Promise.all([persistent.dispose(), oneshot.dispose()]);
  }
}

async function twentySessions(): Promise<Figure> {
  const host = await createHost(...environment('persistent'));
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const sessions = Array.from({ length: 20 }, () => host.openSession({ cwd: process.cwd() }));
  const open = await timeOnce(() => Promise.all(sessions.map((s) => s.call('bash', args))));
  globalThis.gc?.();
  const grownMb = (process.memoryUsage().rss - before) / 1024 / 1024;
  const dispose = await timeOnce(() => Promise.all(sessions.map((s) => s.dispose())));
  const left = (await new DockerContainerEngine().list([`${LABELS.pid}=${process.pid}`])).length;
  await host.dispose();
  return {
    name: '20 sessions with containers (persistent shells)',
    value: `open ${fmt(open)}, host RSS ${grownMb >= 0 ? "+" : ""}${grownMb.toFixed(1)} MB, dispose all ${fmt(dispose)}, ${left} containers left`,
  };
}

async function sigkillToNoContainer(): Promise<Figure> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['dist/cli/main.js', 'serve', '--container', IMAGE, '--workspace', process.cwd()],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'bash', arguments: args });
  const pid = transport.pid!;
  const engine = new DockerContainerEngine();
  const started = performance.now();
  process.kill(pid, 'SIGKILL');
  while ((await engine.list([`${LABELS.pid}=${pid}`])).length > 0) {
    if (performance.now() - started > 30_000) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = performance.now() - started;
  await client.close().catch(() => undefined);
  return { name: 'SIGKILL of the server to no container left', value: fmt(elapsed), goal: '≤ 10 s' };
}

/** Issue 32: a new session's first call with `container.warmPool: 2` against the cold path, in the same run. */
export async function benchWarmPool(runs: number): Promise<Figure[]> {
  const why = await unavailable();
  if (why !== null) return [{ name: 'warm pool', value: `skipped: no container engine (${why})` }];
  const pooled = await createHost(...containerEnvironment({ workspace: process.cwd(), container: { image: IMAGE, warmPool: 2 } }));
  const cold = await createHost(...environment());
  try {
    const { subject, baseline } = await firstCallTimes(pooled, cold, runs, () => poolReady(2));
    const ratio = median(subject) / median(baseline);
    return [{ name: 'first call of a new session, warm pool of 2 (container)', value: fmt(median(subject)), baseline: `cold start ${fmt(median(baseline))}`, ratio, goal: '≤ 100 ms' }];
  } finally {
    await Promise.all([pooled.dispose(), cold.dispose()]);
  }
}

/** Waits until this process has `size` running containers (the pool, refilled; no session is open between runs). */
async function poolReady(size: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { stdout } = await run('docker', ['ps', '-q', '--filter', `label=${LABELS.pid}=${process.pid}`, '--filter', 'status=running']);
    if (stdout.trim().split('\n').filter(Boolean).length >= size) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

