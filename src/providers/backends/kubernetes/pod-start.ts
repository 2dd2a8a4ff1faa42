import type { V1Pod } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { KubeClient } from './kube-client.js';
import { startProgress } from './pod-status.js';

/** How often a starting pod's status is read: soon at first, then less often (many pods starting at once share the API server). */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 500;

/**
 * Resolves once the pod's container runs. Rejects at once when it cannot
 * start (an image that cannot be pulled, a container that cannot be
 * created, a pod that stopped), and after `timeoutMs` with what it was still
 * waiting for (the scheduler's reason when it was not scheduled).
 */
export async function waitUntilRunning(client: KubeClient, name: string, image: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let why = 'not read yet';
  let pause = FIRST_POLL_MS;
  for (;;) {
    const pod: V1Pod = await client.core.readNamespacedPod({ name, namespace: client.namespace });
    const progress = startProgress(pod, image);
    if (progress.kind === 'running') return;
    if (progress.kind === 'failed') throw new Error(progress.why);
    why = progress.why;
    if (Date.now() >= deadline) throw new Error(`still pending after ${timeoutMs} ms (kubernetes.podStartTimeoutMs): ${why}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(MAX_POLL_MS, Math.round(pause * 1.5));
  }
}
