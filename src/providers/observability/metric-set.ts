import type * as PromClient from 'prom-client';

/** Gauges read at scrape time from the host's own counts. */
interface GaugeReadings {
  sessionsActive(): number;
  backgroundTasksRunning(): number;
  persistentShellsOpen(): number;
}

/** The host's metrics, in a registry of its own (two hosts in one process never share one). */
export interface MetricSet {
  readonly registry: PromClient.Registry;
  readonly toolCalls: PromClient.Counter<'tool' | 'outcome'>;
  readonly toolCallDuration: PromClient.Histogram<'tool'>;
  readonly approvals: PromClient.Counter<'outcome'>;
  readonly outputBytes: PromClient.Counter<'stream'>;
  readonly leftoversKilled: PromClient.Counter;
  readonly auditFailures: PromClient.Counter;
  readonly sessionsReleased: PromClient.Counter<'reason'>;
  readonly sessionsAdopted: PromClient.Counter<'era'>;
  readonly callQueueRefusals: PromClient.Counter<'cap'>;
  readonly httpRequests: PromClient.Counter<'code'>;
  readonly authFailures: PromClient.Counter;
}

/** Tool calls last from milliseconds (`true`) to the longest timeout (10 minutes by default). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export function createMetricSet(client: typeof PromClient, readings: GaugeReadings): MetricSet {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const gauge = (name: string, help: string, read: () => number): void => {
    new client.Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  };
  gauge('dsh_sessions_active', 'Agent sessions open on this host.', () => readings.sessionsActive());
  gauge('dsh_background_tasks_running', 'Background tasks started through this host and not finished yet.', () =>
    readings.backgroundTasksRunning(),
  );
  gauge('dsh_persistent_shells_open', 'Persistent shells open (one per session at most).', () => readings.persistentShellsOpen());
  return {
    registry,
    toolCalls: new client.Counter({
      name: 'dsh_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, exit_nonzero, error, timeout, cancelled, denied, promoted).',
      labelNames: ['tool', 'outcome'],
      registers,
    }),
    toolCallDuration: new client.Histogram({
      name: 'dsh_tool_call_duration_seconds',
      help: 'Duration of tool calls, from the call to its answer.',
      labelNames: ['tool'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    approvals: new client.Counter({
      name: 'dsh_approvals_total',
      help: 'Approvals asked during tool calls, by decision.',
      labelNames: ['outcome'],
      registers,
    }),
    outputBytes: new client.Counter({
      name: 'dsh_output_bytes_total',
      help: 'Output bytes of tool call results, by stream (stdout, stderr, pty, task).',
      labelNames: ['stream'],
      registers,
    }),
    leftoversKilled: new client.Counter({
      name: 'dsh_leftover_processes_killed_total',
      help: 'Processes still alive when their command ended, killed then.',
      registers,
    }),
    auditFailures: new client.Counter({
      name: 'dsh_audit_failures_total',
      help: 'Audit records an audit sink failed to store.',
      registers,
    }),
    sessionsReleased: new client.Counter({
      name: 'dsh_sessions_released_total',
      help: 'Sessions the server ended with their tasks, by reason (idle: abandoned; lifetime; evicted: to make room at a cap).',
      labelNames: ['reason'],
      registers,
    }),
    sessionsAdopted: new client.Counter({
      name: 'dsh_sessions_adopted_total',
      help: 'Shared sessions another replica opened that this one took up on their first request here, by era (legacy, modern).',
      labelNames: ['era'],
      registers,
    }),
    callQueueRefusals: new client.Counter({
      name: 'dsh_call_queue_refusals_total',
      help: 'Tool calls refused after waiting the call queue timeout, by the cap they waited for (server, caller).',
      labelNames: ['cap'],
      registers,
    }),
    httpRequests: new client.Counter({
      name: 'dsh_http_requests_total',
      help: 'Requests the HTTP listener answered, by status code (refusals included: 401, 403, 404, 503).',
      labelNames: ['code'],
      registers,
    }),
    authFailures: new client.Counter({
      name: 'dsh_auth_failures_total',
      help: 'HTTP requests refused for a missing or wrong bearer token (401).',
      registers,
    }),
  };
}
