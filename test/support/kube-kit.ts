// Helpers for the Kubernetes provider's tests: the test's own client (never the engine's) and a fresh workspace.
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { LABELS } from '../../src/index.js';

export const kube = new k8s.KubeConfig();
try {
  kube.loadFromDefault();
} catch {
  // No usable kubeconfig: the suites skip themselves; the clients below still need a cluster to be built.
}
if (!kube.getCurrentCluster()) {
  kube.loadFromOptions({
    clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'none' }],
    contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
    currentContext: 'none',
  });
}
export const core = kube.makeApiClient(k8s.CoreV1Api);
export const rbac = kube.makeApiClient(k8s.RbacAuthorizationV1Api);
export const coordination = kube.makeApiClient(k8s.CoordinationV1Api);
export const networking = kube.makeApiClient(k8s.NetworkingV1Api);

export const text = (result: { content: { text: string }[] }): string => result.content.map((block) => block.text).join('');

export function workspace(prefix: string): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), `dsh-k8s-${prefix}-`)));
}

/** The session's pods (by the session label), in `namespace`. */
export async function sessionPods(sessionId: string, namespace = 'default'): Promise<k8s.V1Pod[]> {
  const list = await core.listNamespacedPod({ namespace, labelSelector: `${LABELS.managed}=1,${LABELS.session}=${sessionId}` });
  return list.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined);
}

/** A namespace of the test's own, deleted (in the background) by the returned function. */
export async function scratchNamespace(prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  await core.createNamespace({ body: { metadata: { name } } });
  // Pods are refused until the controller-manager made the namespace's default service account.
  for (let i = 0; i < 100; i++) {
    const accounts = await core.listNamespacedServiceAccount({ namespace: name });
    if (accounts.items.some((a) => a.metadata?.name === 'default')) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, remove: () => core.deleteNamespace({ name }).then(() => undefined, () => undefined) };
}

/** Runs `argv` in a pod through the test's own client; resolves with stdout. */
export async function podExec(namespace: string, pod: string, argv: string[]): Promise<string> {
  let out = '';
  const { Writable } = await import('node:stream');
  const stdout = new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) });
  await new Promise<void>((resolve, reject) => {
    new k8s.Exec(kube)
      .exec(namespace, pod, 'shell', argv, stdout, null, null, false, () => resolve())
      .then((ws) => ws.on('close', () => resolve()), reject);
  });
  return out;
}
