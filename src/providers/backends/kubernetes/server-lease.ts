import os from 'node:os';
import type { V1Lease } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { LABELS } from '../../exec/engine/container-engine.js';
import type { KubeClient } from './kube-client.js';
import { leaseLapsesAt, microTime } from './lease-time.js';
import { labelValue } from './pod-manifest.js';
import { SHARED_SESSION_LABEL } from './session-lease-shape.js';

/** How often the lease is renewed, as a share of its duration. */
const RENEW_SHARE = 1 / 3;

/**
 * This server's `coordination.k8s.io/v1` Lease, renewed while it runs. Every
 * session pod is a dependent of it (an ownerReference), so deleting the lease
 * makes the garbage collector delete the pods. A server that dies without
 * deleting it (SIGKILL) leaves a lease that stops being renewed; any server
 * using the namespace deletes expired leases when it starts and on every
 * renewal (`reapExpiredLeases`), and the pods go with them.
 */
export class ServerLease {
  private lease?: Promise<{ name: string; uid: string }>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly client: KubeClient,
    private readonly instanceId: string,
    private readonly seconds: number,
  ) {}

  get name(): string {
    return `dsh-tools-${this.instanceId}`;
  }

  /** The lease, created on first use; the renewal timer does not hold the process open. */
  acquire(): Promise<{ name: string; uid: string }> {
    this.lease ??= this.create().catch((error: unknown) => {
      this.lease = undefined;
      throw error;
    });
    return this.lease;
  }

  /** Stops renewing and deletes the lease (its remaining pods go with it). */
  async release(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.lease === undefined) return;
    await this.lease.catch(() => undefined);
    await this.client.coordination
      .deleteNamespacedLease({ name: this.name, namespace: this.client.namespace, propagationPolicy: 'Background' })
      .catch(() => undefined);
  }

  private async create(): Promise<{ name: string; uid: string }> {
    const body: V1Lease = {
      metadata: {
        name: this.name,
        labels: { [LABELS.managed]: '1', [LABELS.instance]: this.instanceId, [LABELS.hostname]: labelValue(os.hostname()), [LABELS.pid]: String(process.pid) },
      },
      spec: { holderIdentity: `${os.hostname()}/${process.pid}`, leaseDurationSeconds: this.seconds, renewTime: microTime(new Date()) as never },
    };
    const created = await this.client.coordination.createNamespacedLease({ namespace: this.client.namespace, body });
    this.schedule();
    return { name: this.name, uid: created.metadata!.uid! };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.renew(), Math.max(1000, this.seconds * 1000 * RENEW_SHARE));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    try {
      const patch = [{ op: 'replace', path: '/spec/renewTime', value: microTime(new Date()) }];
      await this.client.coordination.patchNamespacedLease({ name: this.name, namespace: this.client.namespace, body: patch });
      await reapExpiredLeases(this.client);
    } catch {
      // A missed renewal is retried next time; the lease has two more periods before it expires.
    }
    this.schedule();
  }
}

/**
 * Deletes the namespace's server leases that are past their duration;
 * resolves with how many. A shared session's lease is not a server's: it
 * ends only by a claim (lease-session-registry.ts), whose replica ends its sandbox.
 */
export async function reapExpiredLeases(client: KubeClient, now: number = Date.now()): Promise<number> {
  const list = await client.coordination.listNamespacedLease({ namespace: client.namespace, labelSelector: `${LABELS.managed}=1,!${SHARED_SESSION_LABEL}` });
  const expired = list.items.filter((lease) => leaseLapsesAt(lease) < now);
  await Promise.all(
    expired.map((lease) =>
      client.coordination
        .deleteNamespacedLease({ name: lease.metadata!.name!, namespace: client.namespace, propagationPolicy: 'Background' })
        .catch(() => undefined),
    ),
  );
  return expired.length;
}
