import type { DshHost } from '../container/dsh-host.js';
import type { CallGate } from '../mcp/calls/call-gate.js';
import type { Logger } from '../providers/logging/logger.js';

/** The `serve` flags of the call gate. */
interface CallGateFlags {
  readonly maxConcurrentCalls?: number;
  readonly maxConcurrentCallsPerCaller?: number;
  readonly callQueueTimeout: number;
}

/**
 * The call gate `--max-concurrent-calls` and `--max-concurrent-calls-per-caller`
 * ask for (none without either): every refusal after the queue timeout is
 * counted (`dsh_call_queue_refusals_total{cap}`) and logged at `warn`.
 */
export async function callGateFrom(flags: CallGateFlags, host: DshHost, logger: Logger): Promise<CallGate | undefined> {
  if (flags.maxConcurrentCalls === undefined && flags.maxConcurrentCallsPerCaller === undefined) return undefined;
  const [{ CallGate }, { HostMetrics }] = await Promise.all([
    import('../mcp/calls/call-gate.js'),
    import('../providers/observability/host-metrics.js'),
  ]);
  const metrics = host.isBound(HostMetrics) ? host.get(HostMetrics) : undefined;
  return new CallGate({
    maxConcurrent: flags.maxConcurrentCalls ?? Number.MAX_SAFE_INTEGER,
    ...(flags.maxConcurrentCallsPerCaller !== undefined ? { maxConcurrentPerCaller: flags.maxConcurrentCallsPerCaller } : {}),
    queueTimeoutMs: flags.callQueueTimeout * 1000,
    onRefused: (cap, caller) => {
      metrics?.update((m) => m.callQueueRefusals.inc({ cap }));
      logger.warn('call queue: a call waited too long for a place and was refused', { event: 'call_refused', cap, caller: caller ?? null });
    },
  });
}
