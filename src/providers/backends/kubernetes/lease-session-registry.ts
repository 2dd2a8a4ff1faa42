import type { V1Lease } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { Clock } from '../../logging/logger.js';
import { expiryOf } from '../../registry/record-expiry.js';
import { assertSessionKey, newRecordToStore } from '../../registry/record-shape.js';
import type { NewSessionRecord, SessionRecord, SessionRegistry } from '../../registry/session-registry.js';
import { TouchThrottle } from '../../registry/touch-throttle.js';
import { LABELS } from '../../exec/engine/container-engine.js';
import type { KubeClient } from './kube-client.js';
import { describeKubeError, httpStatus } from './kube-errors.js';
import { retryTransient } from './kube-retry.js';
import { leaseLapsesAt, microTime } from './lease-time.js';
import { recordOfLease, SESSION_LEASES, sessionLease, sessionLeaseName } from './session-lease-shape.js';

export interface LeaseSessionRegistryOptions {
  readonly clock?: Clock;
  /**
   * This server's own Lease (server-lease.ts), which tells the other
   * replicas it is alive: `join` makes sure it exists, `othersAlive` looks
   * past it. Without it this replica counts as alive only once its engine
   * holds the lease (its first pod).
   */
  readonly self?: { readonly name: string; acquire(): Promise<unknown> };
  /** Runs between listing a record as expired and claiming it: tests race a touch there. */
  readonly beforeClaim?: (key: string) => Promise<void> | void;
}

/** An API answer the caller handles, as opposed to a failure. */
type Answer<T> = { readonly ok: T } | { readonly status: number };

/**
 * Session records as one `coordination.k8s.io/v1` Lease per session in the
 * engine's namespace (docs/shared-sessions.md#registry). The last use is the
 * Lease's `renewTime`; a reaper claims an expired record by deleting its
 * Lease with the resourceVersion it listed as a precondition, so of several
 * claimers one wins (the others get 404 or 409) and a Lease touched since it
 * was listed is not deleted (409). Replicas are the servers' own Leases.
 */
export class LeaseSessionRegistry implements SessionRegistry {
  readonly describe: string;
  private readonly clock: Clock;
  private readonly throttle = new TouchThrottle();

  constructor(
    private readonly client: KubeClient,
    private readonly options: LeaseSessionRegistryOptions = {},
  ) {
    this.describe = `leases in namespace ${client.namespace}`;
    this.clock = options.clock ?? { now: () => Date.now() };
  }

  async register(record: NewSessionRecord): Promise<void> {
    const fields = newRecordToStore(record);
    const createdAt = this.clock.now();
    const body = sessionLease(fields, createdAt);
    // A create is sent again only when it cannot have reached the API server.
    const made = await this.call('create leases', false, () => this.client.coordination.createNamespacedLease({ namespace: this.client.namespace, body }), [409]);
    if ('status' in made) throw new Error(`a session record with key ${record.key.slice(0, 12)}… exists already`);
    this.throttle.wrote(fields, createdAt);
  }

  async find(key: string): Promise<SessionRecord | undefined> {
    assertSessionKey(key);
    const read = await this.call('get leases', true, () => this.client.coordination.readNamespacedLease({ name: sessionLeaseName(key), namespace: this.client.namespace }), [404]);
    return 'ok' in read ? recordOfLease(read.ok, key) : undefined;
  }

  async touch(key: string): Promise<boolean> {
    assertSessionKey(key);
    const now = this.clock.now();
    if (this.throttle.canSkip(key, now)) return true;
    const body = [{ op: 'replace', path: '/spec/renewTime', value: microTime(new Date(now)) }];
    const patched = await this.call(
      'patch leases',
      true,
      () => this.client.coordination.patchNamespacedLease({ name: sessionLeaseName(key), namespace: this.client.namespace, body }),
      [404],
    );
    const record = 'ok' in patched ? recordOfLease(patched.ok, key) : undefined;
    if (record === undefined) {
      this.throttle.forget(key);
      return false;
    }
    this.throttle.wrote(record, now);
    return true;
  }

  async remove(key: string): Promise<boolean> {
    assertSessionKey(key);
    this.throttle.forget(key);
    // Not sent twice: a repeat of a delete that went through would answer 404 and tell the wrong caller it was gone.
    const deleted = await this.call(
      'delete leases',
      false,
      () => this.client.coordination.deleteNamespacedLease({ name: sessionLeaseName(key), namespace: this.client.namespace, propagationPolicy: 'Background' }),
      [404],
    );
    return 'ok' in deleted;
  }

  async claimExpired(now: number = this.clock.now()): Promise<SessionRecord[]> {
    const claimed: SessionRecord[] = [];
    for (const lease of await this.sessionLeases()) {
      const record = recordOfLease(lease);
      if (record === undefined || expiryOf(record, now) === undefined) continue;
      await this.options.beforeClaim?.(record.key);
      const resourceVersion = lease.metadata!.resourceVersion!;
      const deleted = await this.call(
        'delete leases',
        false,
        () =>
          this.client.coordination.deleteNamespacedLease({
            name: lease.metadata!.name!,
            namespace: this.client.namespace,
            propagationPolicy: 'Background',
            body: { preconditions: { resourceVersion } },
          }),
        // 404: another replica claimed or removed it; 409: touched (or claimed and made anew) since it was listed.
        [404, 409],
      );
      if ('status' in deleted) continue;
      this.throttle.forget(record.key);
      claimed.push(record);
    }
    return claimed;
  }

  async liveSessionIds(): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const lease of await this.sessionLeases()) {
      const record = recordOfLease(lease);
      if (record !== undefined) ids.add(record.sessionId);
    }
    return ids;
  }

  /** Makes sure this server's Lease exists, so other replicas count this one alive before it starts a pod. */
  async join(): Promise<void> {
    const self = this.options.self;
    // Through `call`: an account that may not create it fails the start with the verb, not an API body.
    if (self !== undefined) await this.call('create leases', false, () => self.acquire());
  }

  /** Nothing to do: the engine deletes this server's Lease when it stops (and the server-lease reaper one a crash left). */
  async leave(): Promise<void> {}

  async othersAlive(): Promise<boolean> {
    const now = this.clock.now();
    const list = await this.call('list leases', true, () =>
      this.client.coordination.listNamespacedLease({ namespace: this.client.namespace, labelSelector: `${LABELS.managed}=1,${LABELS.instance}` }),
    );
    if (!('ok' in list)) return false;
    return list.ok.items.some((lease) => {
      if (lease.metadata?.name === this.options.self?.name || lease.metadata?.deletionTimestamp !== undefined) return false;
      return leaseLapsesAt(lease) > now;
    });
  }

  private async sessionLeases(): Promise<V1Lease[]> {
    const list = await this.call('list leases', true, () => this.client.coordination.listNamespacedLease({ namespace: this.client.namespace, labelSelector: SESSION_LEASES }));
    return 'ok' in list ? list.ok.items : [];
  }

  /** Runs an API call through an outage; an answer with a status in `answers` resolves as that status, any other failure throws it in words. */
  private async call<T>(doing: string, repeatable: boolean, attempt: () => Promise<T>, answers: readonly number[] = []): Promise<Answer<T>> {
    try {
      return { ok: await retryTransient(attempt, repeatable) };
    } catch (error) {
      const status = httpStatus(error);
      if (status !== undefined && answers.includes(status)) return { status };
      throw new Error(`session registry: ${describeKubeError(error, this.client.server, doing)}`, { cause: error });
    }
  }
}
