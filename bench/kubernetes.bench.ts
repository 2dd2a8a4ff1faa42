// Kubernetes execution figures (issue 20: every session in its own pod), on the cluster of $KUBECONFIG.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost, kubernetesEnvironment, LABELS } from '../dist/index.js';
import { SessionContainersToken } from '../dist/providers/exec/engine/session-containers.js';
import { fmt, interleaved, median, timeOnce, type Figure } from './stats.js';
import { rawSpawn } from './raw-spawn.js';
import { firstCallTimes } from './warm-pool.js';

const IMAGE = process.env.K8S_KIT_IMAGE ?? 'k8s.local/shell:1';
const args = { command: 'true', description: 'Do nothing' };
const kube = new k8s.KubeConfig();

/** Null when a cluster answers at $KUBECONFIG; else why not. */
async function unavailable(): Promise<string | null> {
  if (!process.env.KUBECONFIG) return '$KUBECONFIG is not set';
  try {
    kube.loadFromDefault();
    await kube.makeApiClient(k8s.VersionApi).getCode();
    return null;
  } catch (error) {
    return (error as Error).message.split('\n')[0]!;
  }
}

const environment = (shell: 'oneshot' | 'persistent' = 'oneshot', leaseSeconds?: number, channel = true) =>
  kubernetesEnvironment({ workspace: process.cwd(), shell, kubernetes: { image: IMAGE, channel, ...(leaseSeconds === undefined ? {} : { leaseSeconds }) } });

async function podsWith(label: string): Promise<string[]> {
  const list = await kube.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: 'default', labelSelector: `${LABELS.managed}=1,${label}` });
  return list.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined).map((pod) => pod.metadata!.name!);
}

export async function benchKubernetes(): Promise<Figure[]> {
  const why = await unavailable();
  if (why !== null) return [{ name: 'kubernetes suite', value: `skipped: no cluster (${why})` }];
  return [
    await firstResult(5),
    await warmPoolFirstCall(5),
    await oneShotVsRawExec(30),
    await channelVsLocalSpawn(30),
    await persistentRoundTrip(100),
    await twentySessions(),
    await sigkillToNoPod(),
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
    return { name: 'pod creation to first result (`true`)', value: fmt(median(times)) };
  } finally {
    await host.dispose();
  }
}

/**
 * Issue 32: the first call of a new session when two pods wait in the
 * pool (`kubernetes.warmPool: 2`), against a cold pod start in the same run.
 * Each run waits until the pool is full again, as a server between two new
 * sessions would.
 */
async function warmPoolFirstCall(runs: number): Promise<Figure> {
  const pooled = await createHost(...kubernetesEnvironment({ workspace: process.cwd(), kubernetes: { image: IMAGE, warmPool: 2 } }));
  const cold = await createHost(...environment());
  const pool = pooled.get(SessionContainersToken);
  try {
    // The pool says how many are ready; nothing else announces a refill.
    const poolReady = async (): Promise<void> => {
      for (let waited = 0; pool.pooled < 2 && waited < 1200; waited++) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const { subject, baseline } = await firstCallTimes(pooled, cold, runs, poolReady);
    const ratio = median(subject) / median(baseline);
    return { name: 'first call of a new session, warm pool of 2 (pod)', value: fmt(median(subject)), baseline: `cold pod start ${fmt(median(baseline))}`, ratio, goal: '≤ 100 ms' };
  } finally {
    await Promise.all([pooled.dispose(), cold.dispose()]);
  }
}

/** Issue 32: a one-shot `true` in a session pod through the session's channel, against a raw local spawn by the server in the same run. */
async function channelVsLocalSpawn(runs: number): Promise<Figure> {
  const host = await createHost(...environment());
  try {
    const session = host.openSession({ cwd: process.cwd() });
    await session.call('bash', args);
    if (!(await host.get(SessionContainersToken).channelReady(session))) throw new Error('the channel did not start');
    const r = await interleaved(runs, () => session.call('bash', args), () => rawSpawn('true'), 3);
    return { name: 'one-shot `true` in a pod, through the channel', value: fmt(r.subject), baseline: `local raw spawn ${fmt(r.baseline)}`, ratio: r.ratio, goal: '≤ 3×' };
  } finally {
    await host.dispose();
  }
}

/** `true` through client-node's own Exec, as the kit measured it. */
function rawExec(pod: string): Promise<void> {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  return new Promise<void>((resolve, reject) => {
    new k8s.Exec(kube).exec('default', pod, 'shell', ['true'], sink, sink, null, false).then((ws) => ws.on('close', () => resolve()), reject);
  });
}

async function oneShotVsRawExec(runs: number): Promise<Figure> {
  const host = await createHost(...environment('oneshot', undefined, false));
  try {
    const session = host.openSession({ id: 'bench-raw', cwd: process.cwd() });
    await session.call('bash', args);
    const [pod] = await podsWith(`${LABELS.session}=bench-raw`);
    const r = await interleaved(runs, () => session.call('bash', args), () => rawExec(pod!), 3);
    return { name: 'one-shot `true` in a pod (exec API)', value: fmt(r.subject), baseline: `raw client-node exec ${fmt(r.baseline)}`, ratio: r.ratio, goal: 'no slower than the raw exec' };
  } finally {
    await host.dispose();
  }
}

async function persistentRoundTrip(runs: number): Promise<Figure> {
  const persistent = await createHost(...environment('persistent'));
  const oneshot = await createHost(...environment());
  try {
    const a = persistent.openSession({ cwd: process.cwd() });
    const b = oneshot.openSession({ cwd: process.cwd() });
    const r = await interleaved(runs, () => a.call('bash', args), () => b.call('bash', args));
    return { name: 'persistent `true` round trip in a pod', value: fmt(r.subject), baseline: `pod one-shot ${fmt(r.baseline)}`, ratio: r.ratio, goal: 'median ≤ 3 ms' };
  } finally {
    await Promise.all([persistent.dispose(), oneshot.dispose()]);
  }
}

async function twentySessions(): Promise<Figure> {
  const host = await createHost(...environment('persistent'));
  const sessions = Array.from({ length: 20 }, () => host.openSession({ cwd: process.cwd() }));
  const open = await timeOnce(() => Promise.all(sessions.map((s) => s.call('bash', args))));
  const dispose = await timeOnce(() => Promise.all(sessions.map((s) => s.dispose())));
  const left = (await podsWith(`${LABELS.pid}=${process.pid}`)).length;
  await host.dispose();
  return { name: '20 sessions with pods (persistent shells)', value: `open ${fmt(open)}, dispose all ${fmt(dispose)}, ${left} pods left` };
}

/** A served process SIGKILLed; this process runs a server of its own (same 5 s lease) whose renewals reap expired leases. */
async function sigkillToNoPod(): Promise<Figure> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-k8s-'));
  const config = path.join(dir, 'dsh.json');
  writeFileSync(config, JSON.stringify({ kubernetes: { kubeconfig: process.env.KUBECONFIG, leaseSeconds: 5 } }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['dist/cli/main.js', 'serve', '--config', config, '--kubernetes', IMAGE, '--workspace', process.cwd()],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'bash', arguments: args });
  const pid = transport.pid!;
  const other = await createHost(...environment('oneshot', 5));
  await other.call('bash', args);
  const started = performance.now();
  process.kill(pid, 'SIGKILL');
  while ((await podsWith(`${LABELS.pid}=${pid}`)).length > 0) {
    if (performance.now() - started > 60_000) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const elapsed = performance.now() - started;
  await client.close().catch(() => undefined);
  await other.dispose();
  return { name: 'SIGKILL of the server to no pod left (lease 5 s, reaped by a running server)', value: fmt(elapsed), goal: '≤ lease + renewal period + GC' };
}
