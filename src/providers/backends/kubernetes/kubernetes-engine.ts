import { randomUUID } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import {
  EXEC_TAG_VAR,
  LABELS,
  type ContainerEngine,
  type ContainerHandle,
  type ContainerSpec,
  type ContainerState,
  type EngineInfo,
  type ExecChannel,
  type ExecOptions,
} from '../../exec/engine/container-engine.js';
import { killTaggedThrough } from '../../exec/engine/kill-tagged.js';
import { withTimeout } from '../../exec/engine/engine-errors.js';
import { assertClientNode, connectKube, isLoopbackServer, type KubeClient } from './kube-client.js';
import { describeKubeError, httpStatus } from './kube-errors.js';
import { retryTransient } from './kube-retry.js';
import type { ResolvedKubernetesConfig } from './kubernetes-config.js';
import { waitForTaggedRoot } from './local-tag-pid.js';
import { execPath, openExec, type Connect } from './pod-exec.js';
import { labelValue, podManifest } from './pod-manifest.js';
import { PodSeccompChooser } from './pod-seccomp.js';
import { waitUntilRunning } from './pod-start.js';
import { containerState, stoppedReason } from './pod-status.js';
import { PodStopWatcher } from './pod-stop-watcher.js';
import { reapExpiredLeases, ServerLease } from './server-lease.js';
import { LeaseSessionRegistry } from './lease-session-registry.js';
import type { SessionRegistry } from '../../registry/session-registry.js';
import { ensureIsolationPolicy } from './session-isolation.js';
import { EGRESS_LABEL } from './egress-policy.js';
import type { EgressRules } from './network-policy-config.js';

/** API calls that are not streams give up after this long instead of hanging a tool call. */
const CALL_TIMEOUT_MS = 15_000;
/** How long a TTY exec's process may take to show in this machine's /proc. */
const PID_WAIT_MS = 2_000;
/** Pods of this engine carry it, so its stop watcher lists only its own. */
const SERVER_LABEL = 'dsh-tools.server';

/**
 * `ContainerEngine` on a Kubernetes cluster through @kubernetes/client-node:
 * a session's container is a pod (see pod-manifest.ts), its execs go through
 * the pods `exec` subresource (WebSocket), and the pods' lifetime is bounded
 * by this server's lease (server-lease.ts). The client loads with the first call.
 */
export class KubernetesEngine implements ContainerEngine {
  /** `hostPid` answers from this machine's /proc when the pod runs here, else undefined. */
  readonly localPids = true;
  readonly sessionUnit = 'pod';
  readonly id = randomUUID();
  private client?: Promise<KubeClient>;
  private server?: string;
  private lease?: ServerLease;
  /** The policies' creation; resolves to the egress label value session pods carry (none: no egress policy). */
  private isolation?: Promise<string | undefined>;
  private watcher?: PodStopWatcher;
  /** Watches the shared pods this server adopted (`watch`). */
  private sharedWatcher?: PodStopWatcher;
  private readonly seccomp: PodSeccompChooser;
  /** Set once the API server answered: from then on a failure to reach it is an outage to ride out, not a wrong address. */
  private reached = false;

  constructor(
    readonly config: ResolvedKubernetesConfig,
    private readonly workspace?: string,
    seccomp?: PodSeccompChooser,
  ) {
    this.seccomp = seccomp ?? new PodSeccompChooser(config.seccompProfile, config.user);
  }

  get endpoint(): string {
    return this.server ?? `kubernetes (${this.config.kubeconfig ?? process.env.KUBECONFIG ?? '~/.kube/config'})`;
  }

  assertInstalled(): void {
    assertClientNode();
  }

  /** The namespace pods go to (known once connected). */
  async namespace(): Promise<string> {
    return (await this.connect()).namespace;
  }

  async info(): Promise<EngineInfo> {
    const version = await this.call('get version', (client) => client.version.getCode());
    return { endpoint: this.endpoint, version: version.gitVersion, apiVersion: `${version.major}.${version.minor}` };
  }

  /**
   * Shared sessions' records (docs/shared-sessions.md#registry): a Lease per
   * session in this engine's namespace; this server's own Lease tells the
   * other replicas it is alive (their pods are no dependents of it). Typed
   * as the seam: the published declarations must not name the optional
   * Kubernetes client's types.
   */
  async sessionRegistry(): Promise<SessionRegistry> {
    const client = await this.connect();
    this.lease ??= new ServerLease(client, this.id, this.config.leaseSeconds);
    return new LeaseSessionRegistry(client, { self: this.lease });
  }

  /** Whether a node has it is known only once a pod is scheduled: answered at pod start instead. */
  async imagePresent(): Promise<boolean> {
    return true;
  }

  async create(spec: ContainerSpec): Promise<ContainerHandle> {
    const client = await this.connect();
    const seccompProfile = this.seccomp.profileFor(spec);
    const egress = this.config.networkPolicy === false ? undefined : await this.ensureIsolation(client, this.config.networkPolicy.egress);
    // A detached pod (a shared session's) is no dependent of this server's lease: it outlives the server.
    const owner = spec.detached === true ? undefined : await this.call('create leases', () => (this.lease ??= new ServerLease(client, this.id, this.config.leaseSeconds)).acquire());
    const labels = { ...spec.labels, [SERVER_LABEL]: this.id, ...(egress === undefined ? {} : { [EGRESS_LABEL]: egress }) };
    const manifest = podManifest({ ...spec, labels }, this.config, {
      namespace: client.namespace,
      ...(owner === undefined ? {} : { owner }),
      seccompProfile,
      ...(this.workspace === undefined ? {} : { workspace: this.workspace }),
    });
    const name = manifest.metadata!.name!;
    await this.call('create pods', () => client.core.createNamespacedPod({ namespace: client.namespace, body: manifest }));
    try {
      await waitUntilRunning(client, name, spec.image, this.config.podStartTimeoutMs);
    } catch (error) {
      await this.remove(name).catch(() => undefined);
      throw new Error(`the session's pod ${name} did not start: ${describeKubeError(error, client.server, 'get pods')}`);
    }
    this.watcher ??= new PodStopWatcher(client, `${SERVER_LABEL}=${this.id}`);
    return { id: name, stopped: this.watcher.track(name) };
  }

  async exec(podName: string, options: ExecOptions): Promise<ExecChannel> {
    const client = await this.connect();
    const handler = new client.k8s.Exec(client.config).handler;
    const connect: Connect = (path, onFrame) =>
      handler
        .connect(path, null, (channel, data) => {
          onFrame(channel, data);
          return true;
        })
        // A refused WebSocket rejects with the ws ErrorEvent: its `error` is the socket's, with the code.
        .catch((event: unknown) => {
          const inner = (event as { error?: { message?: unknown } } | undefined)?.error;
          throw typeof inner?.message === 'string' ? inner : event;
        }) as unknown as ReturnType<Connect>;
    const tag = options.env[EXEC_TAG_VAR];
    const local = tag !== undefined && options.tty && isLoopbackServer(client.server);
    const hostPid = local ? lazyPid(tag) : async () => undefined;
    const open = () => withTimeout(openExec(connect, execPath(client.namespace, podName, options), options, hostPid), CALL_TIMEOUT_MS, `exec timed out after ${CALL_TIMEOUT_MS}ms`);
    try {
      const channel = await (this.reached ? retryTransient(open, true) : open());
      this.reached = true;
      return channel;
    } catch (error) {
      const status = /Unexpected server response: (\d+)/.exec(String((error as Error).message))?.[1];
      if (status === '404') throw new Error(`the session's pod ${podName} is gone`);
      if (status === '403') throw new Error(`forbidden by RBAC (get/create pods/exec): the account may not exec in pods of namespace ${client.namespace}`);
      throw new Error(describeKubeError(error, client.server, 'get/create pods/exec'));
    }
  }

  killTagged(podName: string, tag: string, signal: 'TERM' | 'KILL'): Promise<number> {
    return killTaggedThrough((options) => this.exec(podName, options), tag, signal);
  }

  async state(podName: string): Promise<ContainerState> {
    try {
      return containerState(await this.readPod(podName));
    } catch (error) {
      return { running: false, unknown: true, reason: describeKubeError(error, this.endpoint, 'get pods') };
    }
  }

  /** Deletes the pod at once (grace 0); a missing pod is not an error. */
  async remove(podName: string): Promise<void> {
    const client = await this.connect();
    try {
      await this.call('delete pods', () => client.core.deleteNamespacedPod({ name: podName, namespace: client.namespace, gracePeriodSeconds: 0 }));
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
    }
    this.watcher?.settle(podName, { running: false, reason: 'removed' });
    this.sharedWatcher?.settle(podName, { running: false, reason: 'removed' });
  }

  /** A shared session's pod another server created: watched with every shared pod of the namespace. */
  async watch(podName: string): Promise<ContainerState> {
    const client = await this.connect().catch(() => undefined);
    if (client === undefined) return { running: false, unknown: true, reason: 'the Kubernetes API server cannot be reached' };
    this.sharedWatcher ??= new PodStopWatcher(client, `${LABELS.shared}=1`);
    return this.sharedWatcher.track(podName);
  }

  async list(labels: readonly string[]): Promise<Array<{ id: string; labels: Record<string, string> }>> {
    const client = await this.connect();
    const labelSelector = labels.map((entry) => entry.replace(/=(.*)$/, (_, value: string) => `=${labelValue(value)}`)).join(',');
    const pods = await this.call('list pods', () => client.core.listNamespacedPod({ namespace: client.namespace, labelSelector }));
    // Label values are shortened to fit (a path cannot be one); the annotations keep the dsh-tools ones whole.
    return pods.items.map((pod: V1Pod) => ({ id: pod.metadata!.name!, labels: { ...pod.metadata?.labels, ...wholeLabels(pod.metadata?.annotations) } }));
  }

  /** Session pods have no networks of their own: the namespace's NetworkPolicy isolates them. */
  async createNetwork(): Promise<string> {
    throw new Error('session networks do not exist on Kubernetes: the namespace NetworkPolicy isolates session pods');
  }

  async removeNetwork(): Promise<void> {}

  async listNetworks(): Promise<Array<{ id: string; labels: Record<string, string> }>> {
    return [];
  }

  /** Deletes the leases of servers that stopped renewing them: the garbage collector removes their pods. */
  async reapAbandoned(): Promise<number> {
    const client = await this.connect();
    return this.call('list leases', () => reapExpiredLeases(client));
  }

  /** Stops watching and deletes this server's lease (and with it any pod still left). */
  async dispose(): Promise<void> {
    this.watcher?.close();
    this.sharedWatcher?.close();
    await this.lease?.release();
  }

  /** Why the pod is not running, or undefined while it runs. */
  async stoppedReason(podName: string): Promise<string | undefined> {
    const pod = await this.readPod(podName);
    return pod === undefined ? 'removed' : stoppedReason(pod);
  }

  private async readPod(podName: string): Promise<V1Pod | undefined> {
    const client = await this.connect();
    try {
      return await this.call('get pods', () => client.core.readNamespacedPod({ name: podName, namespace: client.namespace }));
    } catch (error) {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    }
  }

  private ensureIsolation(client: KubeClient, egress: EgressRules): Promise<string | undefined> {
    this.isolation ??= ensureIsolationPolicy(client, egress).catch((error: unknown) => {
      this.isolation = undefined;
      const cause = describeKubeError(error, client.server, 'create networkpolicies');
      if (cause.startsWith('Kubernetes API server unreachable')) throw new Error(cause);
      throw new Error(`cannot create the NetworkPolicy that isolates session pods: ${cause} (or set kubernetes.networkPolicy: false)`);
    });
    return this.isolation;
  }

  private connect(): Promise<KubeClient> {
    this.client ??= connectKube(this.config).then(
      (client) => {
        this.server = client.server;
        return client;
      },
      (error: unknown) => {
        this.client = undefined;
        throw error;
      },
    );
    return this.client;
  }

  /** One API call with a deadline; failures keep their HTTP status and get a readable message. */
  private async call<T>(doing: string, run: (client: KubeClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    const once = () => withTimeout(run(client), CALL_TIMEOUT_MS, `${doing} timed out after ${CALL_TIMEOUT_MS}ms`);
    try {
      // Through an outage: only an API server that answered before is waited for; creates only while nothing was sent.
      const value = await (this.reached ? retryTransient(once, !doing.startsWith('create')) : once());
      this.reached = true;
      return value;
    } catch (error) {
      const status = httpStatus(error);
      const message = /timed out/.test(String((error as Error).message))
        ? `Kubernetes API server unreachable at ${client.server} (${(error as Error).message})`
        : describeKubeError(error, client.server, doing);
      throw Object.assign(new Error(message), status === undefined ? {} : { code: status, body: (error as { body?: unknown }).body });
    }
  }
}

/** The dsh-tools labels among a pod's annotations, with their values whole. */
function wholeLabels(annotations: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => key.startsWith('dsh-tools.')));
}

/** The exec's host pid, looked up once on first use. */
function lazyPid(tag: string): () => Promise<number | undefined> {
  let found: Promise<number | undefined> | undefined;
  return () => (found ??= waitForTaggedRoot(tag, PID_WAIT_MS));
}
