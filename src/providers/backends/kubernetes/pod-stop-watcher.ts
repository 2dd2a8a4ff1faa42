import type { ContainerState } from '../../exec/engine/container-engine.js';
import type { KubeClient } from './kube-client.js';
import { stoppedReason } from './pod-status.js';

/** How often the engine's pods are listed while any is tracked. */
const INTERVAL_MS = 2_000;

/**
 * Settles each tracked pod's `stopped` promise when the pod stops or goes
 * away, from one label-selected list per interval (one call for every
 * session of this server). The timer does not hold the process open.
 */
export class PodStopWatcher {
  private readonly waiting = new Map<string, (state: ContainerState) => void>();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly client: KubeClient,
    private readonly labelSelector: string,
  ) {}

  track(name: string): Promise<ContainerState> {
    const stopped = new Promise<ContainerState>((resolve) => this.waiting.set(name, resolve));
    this.schedule();
    return stopped;
  }

  /** Settles a pod known to be gone (its removal by this server). */
  settle(name: string, state: ContainerState): void {
    const resolve = this.waiting.get(name);
    this.waiting.delete(name);
    resolve?.(state);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const name of [...this.waiting.keys()]) this.settle(name, { running: false, reason: 'removed' });
  }

  private schedule(): void {
    if (this.closed || this.timer !== undefined || this.waiting.size === 0) return;
    this.timer = setTimeout(() => void this.poll(), INTERVAL_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      const list = await this.client.core.listNamespacedPod({ namespace: this.client.namespace, labelSelector: this.labelSelector });
      const seen = new Map(list.items.map((pod) => [pod.metadata?.name, pod]));
      for (const name of [...this.waiting.keys()]) {
        const pod = seen.get(name);
        const reason = pod === undefined ? 'removed' : stoppedReason(pod);
        if (reason !== undefined) this.settle(name, { running: false, reason });
      }
    } catch {
      // The API server is briefly unreachable: the next poll tells.
    }
    this.timer = undefined;
    this.schedule();
  }
}
