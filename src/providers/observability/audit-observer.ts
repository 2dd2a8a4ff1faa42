import { inject, injectable, optional, type ServiceIdentifier } from 'inversify';
import { asContributions, contributionsOf, type Contributions } from '../../core/contribution-collector.js';
import { messageOf } from '../../core/describe-value.js';
import { Logger } from '../logging/logger.js';
import { AuditSink, auditRecordOf } from './audit-sink.js';
import { HostMetrics } from './host-metrics.js';
import type { ToolCallEnd, ToolCallObserver } from './tool-call-observer.js';

export const AuditSinks: ServiceIdentifier<Contributions<AuditSink>> = contributionsOf(AuditSink);

/**
 * Hands the record of every finished call to every bound `AuditSink` and
 * waits until each stored it, so a call answers after its record is down. A
 * sink that fails is logged and counted (`dsh_audit_failures_total`); the
 * call's answer is unchanged.
 */
@injectable()
export class AuditObserver implements ToolCallObserver {
  readonly name = 'audit';
  private readonly sinks: Contributions<AuditSink>;

  constructor(
    @inject(AuditSinks) @optional() sinks?: Contributions<AuditSink> | readonly AuditSink[],
    @inject(HostMetrics) @optional() private readonly metrics?: HostMetrics,
    @inject(Logger) @optional() private readonly logger?: Logger,
  ) {
    this.sinks = asContributions(sinks);
  }

  async onCallEnd(end: ToolCallEnd): Promise<void> {
    const sinks = this.sinks();
    if (sinks.length === 0) return;
    const record = Object.freeze(auditRecordOf(end));
    await Promise.all(
      sinks.map(async (sink) => {
        try {
          await sink.write(record);
        } catch (error) {
          const name = typeof sink?.name === 'string' ? sink.name : 'unnamed sink';
          this.logger?.error(`audit: sink "${name}" lost the record of call ${end.callId} (${end.tool}): ${messageOf(error)}`);
          this.metrics?.update((m) => m.auditFailures.inc());
        }
      }),
    );
  }
}
