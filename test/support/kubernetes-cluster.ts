import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The kit's image (k8s-kit README): built from this machine's programs, never pulled. */
export const KIT_IMAGE = process.env.K8S_KIT_IMAGE ?? 'k8s.local/shell:1';

// A child process, so the probe's client and sockets never live in the test's process.
const PROBE = `
import * as k8s from '@kubernetes/client-node';
const kc = new k8s.KubeConfig(); kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const nodes = await core.listNode();
if (!nodes.items.some((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))) process.exit(3);
const sa = await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
process.exit(sa ? 0 : 4);`;

function clusterReady(): string | undefined {
  const config = process.env.KUBECONFIG;
  if (!config) return '$KUBECONFIG is not set (start one with /work/shared/k8s-kit/up)';
  if (!existsSync(config)) return `$KUBECONFIG ${config} does not exist`;
  const probe = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE], { stdio: 'ignore', timeout: 20_000 });
  return probe.status === 0 ? undefined : 'the cluster in $KUBECONFIG does not answer or has no ready node';
}

/** Why the Kubernetes suites cannot run, or undefined when a cluster answers with a ready node. */
export const clusterProblem: string | undefined = clusterReady();

export const NEEDS_CLUSTER = clusterProblem === undefined ? '' : ` (skipped: needs a Kubernetes cluster — ${clusterProblem})`;

/** `describe` when a cluster answers, else `describe.skip` (the reason is in NEEDS_CLUSTER, appended to the name). */
export const describeWithCluster: jest.Describe = clusterProblem === undefined ? describe : describe.skip;
