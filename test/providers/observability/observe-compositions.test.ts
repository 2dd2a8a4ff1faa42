// One audit line, one span and one counted call per call in every composition: task tools, persistent shell
// gauges, the bwrap sandbox, a Docker session container (with its start as a child span).
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { containerEnvironment, createHost, localEnvironment, sandboxedEnvironment, type DshHost } from '../../../src/index.js';
import type { PluginModule } from '../../../src/core/plugin-module.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../support/bwrap.js';
import { describeWithEngine, NEEDS_ENGINE, TEST_IMAGE } from '../../support/container-engine.js';
import { auditLines, metricsText, sample, tempDir } from '../../support/observability-kit.js';

const exporter = new InMemorySpanExporter();
beforeAll(() => trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })));
afterAll(() => trace.disable());
beforeEach(() => exporter.reset());

interface Composed {
  host: DshHost;
  file: string;
  workspace: string;
  done: () => Promise<void>;
}

async function compose(make: (workspace: string, file: string) => PluginModule[]): Promise<Composed> {
  const tmp = tempDir('observe-comp-');
  const file = path.join(tmp.dir, 'audit.jsonl');
  const host = await createHost(...make(tmp.dir, file));
  return { host, file, workspace: tmp.dir, done: async () => (await host.dispose(), tmp.remove()) };
}

const callSpans = () => exporter.getFinishedSpans().filter((span) => span.name.startsWith('execute_tool '));

describe('task tools on a local host', () => {
  it('audits the start, the read and the kill, and counts the running task until it ends', async () => {
    const c = await compose((workspace, file) => localEnvironment({ workspace, audit: { file } }));
    try {
      const session = c.host.openSession({ cwd: c.workspace });
      const started = await session.call('bash', { command: 'echo started; sleep 30', description: 'long task', run_in_background: true });
      const taskId = (started.value as { taskId: string }).taskId;
      expect(sample(await metricsText(c.host), 'dsh_background_tasks_running')).toBe(1);
      await session.call('task_output', { task_id: taskId });
      await session.call('task_kill', { task_id: taskId });
      const waited = await session.call('task_output', { task_id: taskId, wait: true });
      expect(waited.isError).toBeFalsy();
      const records = auditLines(c.file);
      expect(records.map((r) => [r.tool, r.outcome])).toEqual([
        ['bash', 'ok'],
        ['task_output', 'ok'],
        ['task_kill', 'ok'],
        ['task_output', 'ok'],
      ]);
      expect(records[0]!.taskId).toBe(taskId);
      expect(callSpans()).toHaveLength(4);
      const text = await metricsText(c.host);
      expect(sample(text, 'dsh_background_tasks_running')).toBe(0);
      expect(sample(text, 'dsh_tool_calls_total{tool="task_output",outcome="ok"}')).toBe(2);
      await session.dispose();
    } finally {
      await c.done();
    }
  });
});

describe('outcomes a local host reports', () => {
  it('promoted at the default timeout, cancelled by the caller, denied by a rule', async () => {
    const c = await compose((workspace, file) =>
      localEnvironment({
        workspace,
        executor: { timeoutMs: 300 },
        approval: { rules: [{ match: 'rm', action: 'deny' }] },
        audit: { file },
      }),
    );
    try {
      const session = c.host.openSession({ cwd: c.workspace });
      const promoted = await session.call('bash', { command: 'sleep 20', description: 'outlive the default timeout' });
      expect(promoted.value).toMatchObject({ kind: 'background' });
      const abort = new AbortController();
      const cancelled = session.call('bash', { command: 'echo go; sleep 20', description: 'cancelled' }, { signal: abort.signal });
      abort.abort();
      await cancelled;
      await session.call('bash', { command: 'rm -rf /tmp/nothing-here', description: 'denied' });
      const records = auditLines(c.file);
      expect(records.map((r) => r.outcome)).toEqual(['promoted', 'cancelled', 'denied']);
      expect([records[0]!.policy, records[2]!.policy]).toEqual(['allow', 'deny']);
      expect(sample(await metricsText(c.host), 'dsh_background_tasks_running')).toBe(1);
      await session.dispose();
      expect(sample(await metricsText(c.host), 'dsh_background_tasks_running')).toBe(0);
    } finally {
      await c.done();
    }
  });
});

describe('the persistent shell on a local host', () => {
  it('counts the open shell while its session lives, and audits each command', async () => {
    const c = await compose((workspace, file) => localEnvironment({ workspace, shell: 'persistent', audit: { file } }));
    try {
      const session = c.host.openSession({ cwd: c.workspace });
      await session.call('bash', { command: 'cd /tmp; X=1' });
      await session.call('bash', { command: 'echo $X; pwd; false' });
      expect(sample(await metricsText(c.host), 'dsh_persistent_shells_open')).toBe(1);
      await session.dispose();
      expect(sample(await metricsText(c.host), 'dsh_persistent_shells_open')).toBe(0);
      expect(auditLines(c.file).map((r) => [r.command, r.outcome, r.exitCode])).toEqual([
        ['cd /tmp; X=1', 'ok', 0],
        ['echo $X; pwd; false', 'exit_nonzero', 1],
      ]);
      expect(callSpans().map((span) => span.attributes['dsh.outcome'])).toEqual(['ok', 'exit_nonzero']);
    } finally {
      await c.done();
    }
  });
});

describeWithBwrap(`the bwrap sandbox${NEEDS_BWRAP}`, () => {
  it.each(['oneshot', 'persistent'] as const)('records the sandbox mode of each %s call', async (shell) => {
    const c = await compose((workspace, file) => sandboxedEnvironment({ workspace, shell, sandbox: { mode: 'read-only' }, audit: { file } }));
    try {
      const session = c.host.openSession({ cwd: c.workspace });
      await session.call('bash', { command: 'touch denied-file', description: 'write in a read-only sandbox' });
      const [record] = auditLines(c.file);
      expect(record).toMatchObject({ mode: 'sandbox', sandboxMode: 'read-only', outcome: 'exit_nonzero' });
      expect(callSpans()[0]!.attributes).toMatchObject({ 'dsh.mode': 'sandbox', 'dsh.sandbox_mode': 'read-only' });
      await session.dispose();
    } finally {
      await c.done();
    }
  });
});

describeWithEngine(`a Docker session container${NEEDS_ENGINE}`, () => {
  it.each(['oneshot', 'persistent'] as const)('audits each %s call as container mode, with the container start as a child span', async (shell) => {
    const c = await compose((workspace, file) => containerEnvironment({ workspace, shell, container: { image: TEST_IMAGE }, audit: { file } }));
    try {
      const session = c.host.openSession({ cwd: c.workspace });
      await session.call('bash', { command: 'echo inside', description: 'first call starts the container' });
      await session.call('bash', { command: 'exit 5', description: 'second call reuses it' });
      expect(auditLines(c.file).map((r) => [r.mode, r.outcome, r.exitCode])).toEqual([
        ['container', 'ok', 0],
        ['container', 'exit_nonzero', 5],
      ]);
      const calls = callSpans();
      expect(calls).toHaveLength(2);
      const starts = exporter.getFinishedSpans().filter((span) => span.name === 'container.start');
      expect(starts).toHaveLength(1);
      expect(starts[0]!.parentSpanContext?.spanId).toBe(calls[0]!.spanContext().spanId);
      await session.dispose();
    } finally {
      await c.done();
    }
  }, 120_000);
});
