// Helpers for the Kubernetes provider's tests: the test's own client (never the engine's) and a fresh workspace.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
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

/** A kubeconfig for `server` with a bearer token (the cluster's CA when given, else TLS unchecked). */
export function writeKubeconfig(dir: string, server: string, token: string, ca?: string): string {
  const file = path.join(dir, 'kubeconfig');
  const cluster = ca === undefined ? { server, 'insecure-skip-tls-verify': true } : { server, 'certificate-authority-data': ca };
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
    { mode: 0o600 },
  );
  return file;
}

/** A service account that may do what the engine needs but create pods (by default) and exec in them (or what `leaseVerbs` leaves out); a kubeconfig with its token. */
export async function weakAccount(namespace: string, dir: string, podVerbs = ['get', 'list', 'watch', 'delete'], leaseVerbs = ['create', 'get', 'list', 'patch', 'delete']): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'k8s-weak' } } });
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'k8s-weak' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: podVerbs },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: leaseVerbs },
        { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['create', 'get'] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'k8s-weak' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'k8s-weak' },
      subjects: [{ kind: 'ServiceAccount', name: 'k8s-weak', namespace }],
    },
  });
  // Kubernetes 1.20: the token controller writes a secret for the account.
  for (let i = 0; i < 100; i++) {
    const secrets = await core.listNamespacedSecret({ namespace });
    const secret = secrets.items.find((s) => s.type === 'kubernetes.io/service-account-token' && s.metadata?.annotations?.['kubernetes.io/service-account.name'] === 'k8s-weak');
    if (secret?.data?.token) {
      const token = Buffer.from(secret.data.token, 'base64').toString();
      return writeKubeconfig(dir, kube.getCurrentCluster()!.server, token, secret.data['ca.crt']);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no token secret for k8s-weak');
}
