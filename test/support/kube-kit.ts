// Helpers for the Kubernetes provider's tests: the test's own client (never the engine's) and a fresh workspace.
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { LABELS } from '../../src/index.js';
import { ROOT } from './built-server.js';

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

/** The in-cluster deployment's manifests as docs/kubernetes.md writes them, with `/srv/dsh` moved under `base`. */
export function docManifests(base = '/srv/dsh'): k8s.KubernetesObject[] {
  const doc = readFileSync(path.join(ROOT, 'docs/kubernetes.md'), 'utf8');
  const block = /```yaml\n(# dsh-tools in-cluster deployment[\s\S]*?)```/.exec(doc)![1]!;
  return parseAllDocuments(block.replaceAll('/srv/dsh', base)).map((d) => d.toJS() as k8s.KubernetesObject);
}

/** The rules of the Role docs/kubernetes.md gives the server. */
export function documentedRules(): k8s.V1PolicyRule[] {
  const role = docManifests().find((object) => object.kind === 'Role') as k8s.V1Role | undefined;
  if (role?.rules === undefined) throw new Error('docs/kubernetes.md: no Role in the deployment block');
  return role.rules;
}

/** A service account that may do what the engine needs but create pods (by default) and exec in them (or what `leaseVerbs` leaves out); a kubeconfig with its token. */
export async function weakAccount(namespace: string, dir: string, podVerbs = ['get', 'list', 'watch', 'delete'], leaseVerbs = ['create', 'get', 'list', 'patch', 'delete']): Promise<string> {
  return accountWith(namespace, dir, 'k8s-weak', [
    { apiGroups: [''], resources: ['pods'], verbs: podVerbs },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: leaseVerbs },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['create', 'get'] },
  ]);
}

/** A service account `name` in `namespace` bound to a Role of `rules`; a kubeconfig (in `dir`) with its token. */
export async function accountWith(namespace: string, dir: string, name: string, rules: k8s.V1PolicyRule[]): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  // Kubernetes 1.20: the token controller writes a secret for the account.
  for (let i = 0; i < 100; i++) {
    const secrets = await core.listNamespacedSecret({ namespace });
    const secret = secrets.items.find((s) => s.type === 'kubernetes.io/service-account-token' && s.metadata?.annotations?.['kubernetes.io/service-account.name'] === name);
    if (secret?.data?.token) {
      const token = Buffer.from(secret.data.token, 'base64').toString();
      return writeKubeconfig(dir, kube.getCurrentCluster()!.server, token, secret.data['ca.crt']);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no token secret for ${name}`);
}
