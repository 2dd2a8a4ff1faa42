import type { ServiceIdentifier } from 'inversify';
import { messageOf } from '../../core/describe-value.js';
import type { Logger } from '../logging/logger.js';
import { AuditSinks } from './audit-observer.js';
import type { AuditEvent } from './audit-sink.js';
import { HostMetrics } from './host-metrics.js';

type Source = { isBound(token: ServiceIdentifier): boolean; get<T>(token: ServiceIdentifier<T>): T };

/**
 * Hands `event` to every bound sink that takes events (`writeEvent`); a sink
 * that fails is logged and counted (`dsh_audit_failures_total`) like a lost
 * call record. Never rejects: the request or release it records goes on.
 */
export async function auditEvent(source: Source, event: AuditEvent, logger?: Logger): Promise<void> {
  const bound = source.isBound(AuditSinks) ? source.get(AuditSinks)() : [];
  const sinks = bound.filter((sink) => typeof sink?.writeEvent === 'function');
  await Promise.all(
    sinks.map(async (sink) => {
      try {
        await sink.writeEvent!(Object.freeze({ ...event }));
      } catch (error) {
        logger?.error(`audit: sink "${sink.name}" lost the record of ${event.event}: ${messageOf(error)}`);
        if (source.isBound(HostMetrics)) source.get(HostMetrics).update((m) => m.auditFailures.inc());
      }
    }),
  );
}
