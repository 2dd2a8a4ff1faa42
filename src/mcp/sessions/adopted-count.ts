import type { DshHost } from '../../container/dsh-host.js';
import { HostMetrics } from '../../providers/observability/host-metrics.js';
import type { SessionEra } from '../../providers/registry/session-registry.js';

/** One more shared session taken up here (`dsh_sessions_adopted_total{era}`), when the host keeps metrics. */
export function countAdopted(host: DshHost, era: SessionEra): void {
  if (host.isBound(HostMetrics)) host.get(HostMetrics).update((metrics) => metrics.sessionsAdopted.inc({ era }));
}
