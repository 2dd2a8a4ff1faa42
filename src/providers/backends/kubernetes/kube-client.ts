import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lazyModule } from '../../../core/lazy-module.js';
import { OPTIONAL_PACKAGES, requirePackages } from '../../../core/optional-packages.js';

type KubeModule = typeof import('@kubernetes/client-node', { with: { 'resolution-mode': 'import' } });
type KubeConfig = InstanceType<KubeModule['KubeConfig']>;

/** @kubernetes/client-node (ESM, with its HTTP and WebSocket stacks) loads with the first cluster call. */
const loadClientNode = lazyModule<KubeModule>(
  () => (assertClientNode(), require('@kubernetes/client-node') as KubeModule),
  () => (assertClientNode(), import('@kubernetes/client-node')),
);

/** @kubernetes/client-node is an optional peer dependency: only the Kubernetes composition needs it. */
export function assertClientNode(): void {
  requirePackages('the Kubernetes engine', OPTIONAL_PACKAGES.kubernetes);
}

/** Where the cluster is and who we are there. */
interface KubeTarget {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
}

/** The loaded client: API objects for the calls the engine makes. */
export interface KubeClient {
  readonly k8s: KubeModule;
  readonly config: KubeConfig;
  readonly core: InstanceType<KubeModule['CoreV1Api']>;
  readonly coordination: InstanceType<KubeModule['CoordinationV1Api']>;
  readonly networking: InstanceType<KubeModule['NetworkingV1Api']>;
  readonly version: InstanceType<KubeModule['VersionApi']>;
  readonly namespace: string;
  /** The API server URL. */
  readonly server: string;
}

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The kubeconfig in force: `kubeconfig` when given, else `$KUBECONFIG`, else
 * `~/.kube/config`, else the in-cluster service account. Throws a message
 * that says which places were tried.
 */
export async function connectKube(target: KubeTarget, ambient: NodeJS.ProcessEnv = process.env): Promise<KubeClient> {
  const k8s = await loadClientNode();
  const config = new k8s.KubeConfig();
  const home = path.join(ambient.HOME ?? os.homedir(), '.kube', 'config');
  if (target.kubeconfig !== undefined) {
    if (!existsSync(target.kubeconfig)) throw new Error(`kubeconfig ${target.kubeconfig} does not exist (kubernetes.kubeconfig)`);
    config.loadFromFile(target.kubeconfig);
  } else if (ambient.KUBECONFIG) {
    const files = ambient.KUBECONFIG.split(path.delimiter).filter((file) => file !== '');
    const missing = files.filter((file) => !existsSync(file));
    if (missing.length === files.length) throw new Error(`kubeconfig ${ambient.KUBECONFIG} does not exist ($KUBECONFIG)`);
    config.loadFromDefault({}, false);
  } else if (existsSync(home)) {
    config.loadFromFile(home);
  } else if (ambient.KUBERNETES_SERVICE_HOST && existsSync(IN_CLUSTER_TOKEN)) {
    config.loadFromCluster();
  } else {
    throw new Error('no cluster configured: set kubernetes.kubeconfig or $KUBECONFIG, create ~/.kube/config, or run inside a cluster');
  }
  if (target.context !== undefined) {
    if (config.getContextObject(target.context) === null) {
      const known = config.getContexts().map((c) => c.name);
      throw new Error(`kubeconfig has no context "${target.context}" (it has: ${known.join(', ') || 'none'})`);
    }
    config.setCurrentContext(target.context);
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error(`kubeconfig context "${config.getCurrentContext()}" names no cluster`);
  const namespace = target.namespace ?? config.getContextObject(config.getCurrentContext())?.namespace ?? 'default';
  return {
    k8s,
    config,
    core: config.makeApiClient(k8s.CoreV1Api),
    coordination: config.makeApiClient(k8s.CoordinationV1Api),
    networking: config.makeApiClient(k8s.NetworkingV1Api),
    version: config.makeApiClient(k8s.VersionApi),
    namespace: namespace.trim() || 'default',
    server: cluster.server,
  };
}

/** The API server listens on this machine: the pods' processes may show in our /proc (a one-node cluster such as the kit). */
export function isLoopbackServer(server: string): boolean {
  try {
    const host = new URL(server).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || host.startsWith('127.');
  } catch {
    return false;
  }
}
