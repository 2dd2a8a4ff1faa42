// One span per call through @opentelemetry/api, seen by an in-memory exporter of the SDK the embedder brings.
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createHost, localEnvironment, type DshHost } from '../../../src/index.js';
import { approvalAnswerersModule } from '../../../src/providers/policy/approval/approval.module.js';
import { ScriptedApprovalAnswerer } from '../../../src/testing/scripted-approval-answerer.js';
import { auditLines, metricsText, sample, tempDir } from '../../support/observability-kit.js';

const exporter = new InMemorySpanExporter();
const SECRET = 'tok-9f8e7d6c5b4a';

beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => trace.disable());
beforeEach(() => exporter.reset());

describe('spans of a local host with command rules', () => {
  let host: DshHost;
  let tmp: ReturnType<typeof tempDir>;
  const answerer = new ScriptedApprovalAnswerer(['allowed-once', 'rejected'], 'operator');

  beforeAll(async () => {
    tmp = tempDir('observe-trace-');
    host = await createHost(
      ...localEnvironment({
        workspace: tmp.dir,
        approval: { rules: [{ match: 'echo', action: 'ask' }] },
        audit: { file: path.join(tmp.dir, 'audit.jsonl') },
      }),
      approvalAnswerersModule([answerer]),
    );
  });
  afterAll(async () => {
    await host.dispose();
    tmp.remove();
  });

  it('gives each call one span with its facts, an approval child span, and never the output or the command', async () => {
    const session = host.openSession({ cwd: tmp.dir });
    await session.call('bash', { command: `echo ${SECRET}-out`, description: 'asked and allowed' });
    await session.call('bash', { command: 'echo no', description: 'asked and rejected' });
    await session.call('bash', { command: 'printf 12345; exit 2', description: 'allowed by default' });

    const calls = exporter.getFinishedSpans().filter((span) => span.name === 'execute_tool bash');
    expect(calls).toHaveLength(3);
    const [allowed, rejected, failed] = calls.map((span) => span.attributes);
    expect(allowed).toMatchObject({
      'gen_ai.tool.name': 'bash',
      'dsh.session.id': session.id,
      'dsh.outcome': 'ok',
      'process.exit.code': 0,
      'dsh.mode': 'local',
      'dsh.policy': 'ask',
      'dsh.approval': 'allowed-once',
    });
    expect(rejected).toMatchObject({ 'dsh.outcome': 'denied', 'dsh.approval': 'rejected' });
    expect(failed).toMatchObject({ 'dsh.outcome': 'exit_nonzero', 'process.exit.code': 2, 'dsh.output_bytes.stdout': 5, 'dsh.policy': 'allow' });
    expect(failed!['dsh.duration_ms']).toBeGreaterThan(0);
    for (const span of exporter.getFinishedSpans()) expect(JSON.stringify(span.attributes)).not.toContain(SECRET);

    const approvals = exporter.getFinishedSpans().filter((span) => span.name === 'approval');
    expect(approvals.map((span) => span.attributes['dsh.approval.decision'])).toEqual(['allowed-once', 'rejected']);
    expect(approvals[0]!.parentSpanContext?.spanId).toBe(calls[0]!.spanContext().spanId);
    expect(approvals[0]!.attributes['dsh.approval.answered_by']).toBe('operator');

    const audit = auditLines(path.join(tmp.dir, 'audit.jsonl'));
    expect(audit.map((record) => [record.policy, record.approval, record.answeredBy, record.outcome])).toEqual([
      ['ask', 'allowed-once', 'operator', 'ok'],
      ['ask', 'rejected', 'operator', 'denied'],
      ['allow', null, null, 'exit_nonzero'],
    ]);
    const text = await metricsText(host);
    expect(sample(text, 'dsh_approvals_total{outcome="allowed-once"}')).toBe(1);
    expect(sample(text, 'dsh_approvals_total{outcome="rejected"}')).toBe(1);
    expect(sample(text, 'dsh_tool_calls_total{tool="bash",outcome="denied"}')).toBe(1);
    await session.dispose();
  });
});

describe('telemetry.includeCommand', () => {
  it('puts the redacted command on the span only when switched on', async () => {
    const tmp = tempDir('observe-trace-cmd-');
    const withCommand = await createHost(
      ...localEnvironment({ workspace: tmp.dir, telemetry: { includeCommand: true }, redact: { values: [SECRET] } }),
    );
    const without = await createHost(...localEnvironment({ workspace: tmp.dir, redact: { values: [SECRET] } }));
    try {
      await withCommand.call('bash', { command: `echo ${SECRET}`, description: 'print a secret' });
      await without.call('bash', { command: `echo ${SECRET}`, description: 'print a secret' });
      const [first, second] = exporter.getFinishedSpans().filter((span) => span.name === 'execute_tool bash');
      expect(first!.attributes['dsh.command']).toBe('echo [redacted]');
      expect(second!.attributes).not.toHaveProperty('dsh.command');
    } finally {
      await withCommand.dispose();
      await without.dispose();
      tmp.remove();
    }
  });
});
