// The call hook over fake edges: events for every kind of call, outcomes, and observers or sinks that fail.
import { ContainerModule } from 'inversify';
import { createHost, type DshHost } from '../../../src/index.js';
import { ScriptedExecutor, testingEnvironment } from '../../../src/testing.js';
import { Logger } from '../../../src/providers/logging/logger.js';
import { AuditSink, type AuditRecord } from '../../../src/providers/observability/audit-sink.js';
import type { ToolCallObserver } from '../../../src/providers/observability/tool-call-observer.js';
import { BoomTool, echoToolModule, recorderModule } from '../../support/echo-tool.js';
import { metricsText, observerModule, RecordingObserver, sample } from '../../support/observability-kit.js';

class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string): void {
    this.lines.push(message);
  }
  error(message: string): void {
    this.lines.push(message);
  }
}

function sinkModule(sink: AuditSink): ContainerModule {
  return new ContainerModule(({ bind }) => void bind(AuditSink).toConstantValue(sink));
}

async function hostWith(...extra: ContainerModule[]): Promise<{ host: DshHost; logger: MemoryLogger; executor: ScriptedExecutor }> {
  const executor = new ScriptedExecutor({ 'exit 4': { exitCode: 4 }, slow: { timedOut: true, exitCode: null, signal: 'SIGTERM' } });
  const host = await createHost(...testingEnvironment({ executor }), echoToolModule(), recorderModule(), ...extra);
  const logger = new MemoryLogger();
  await host.rebind(Logger, logger);
  return { host, logger, executor };
}

describe('the call hook', () => {
  it('sends start and end events for the bash tool, task tools, custom tools and unknown tools', async () => {
    const recording = new RecordingObserver();
    const { host } = await hostWith(observerModule(recording));
    try {
      const session = host.openSession({ caller: 'ci' });
      await session.call('bash', { command: 'exit 4', description: 'fail' });
      await session.call('bash', { command: 'slow', description: 'time out' });
      await session.call('task_list', {});
      await session.call('echo', { text: 'hi' });
      await session.call('nope-' as string, {});
      expect(recording.starts.map((e) => e.tool)).toEqual(['bash', 'bash', 'task_list', 'echo', 'nope-']);
      expect(recording.ends.map((e) => [e.tool, e.outcome, e.exitCode, e.caller])).toEqual([
        ['bash', 'exit_nonzero', 4, 'ci'],
        ['bash', 'timeout', null, 'ci'],
        ['task_list', 'ok', null, 'ci'],
        ['echo', 'ok', null, 'ci'],
        ['nope-', 'error', null, 'ci'],
      ]);
      expect(recording.ends.map((e) => e.knownTool)).toEqual([true, true, true, true, false]);
      expect(recording.ends[0]!.command).toBe('exit 4');
      expect(recording.ends[3]).not.toHaveProperty('command');
    } finally {
      await host.dispose();
    }
  });

  it('answers calls unchanged when an observer throws or rejects, and logs it', async () => {
    const throwing: ToolCallObserver = {
      name: 'thrower',
      onCallStart() {
        throw new Error('start broke');
      },
    };
    const rejecting: ToolCallObserver = { name: 'rejecter', onCallEnd: () => Promise.reject(new Error('end broke')) };
    const recording = new RecordingObserver();
    const { host, logger } = await hostWith(observerModule(throwing), observerModule(rejecting), observerModule(recording));
    try {
      const result = await host.call('echo', { text: 'still here' });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'still here' }] });
      expect(recording.ends).toHaveLength(1);
      expect(logger.lines).toEqual([
        'observability: observer "thrower" failed on call start: start broke',
        'observability: observer "rejecter" failed on call end: end broke',
      ]);
    } finally {
      await host.dispose();
    }
  });

  it('reports a tool that throws as an error outcome', async () => {
    const recording = new RecordingObserver();
    const { host } = await hostWith(
      observerModule(recording),
      new ContainerModule(({ bind }) => {
        bind(BoomTool).toSelf();
        bind(Symbol.for('dsh.ToolClass')).toConstantValue(BoomTool);
      }),
    );
    try {
      const result = await host.call('boom', {});
      expect(result.isError).toBe(true);
      expect(recording.ends.map((e) => e.outcome)).toEqual(['error']);
    } finally {
      await host.dispose();
    }
  });

  it('counts a failing audit sink, logs it, keeps writing to the others and never fails the call', async () => {
    const stored: AuditRecord[] = [];
    const broken: AuditSink = { name: 'broken', write: () => Promise.reject(new Error('disk full')) };
    const working: AuditSink = { name: 'memory', write: async (record) => void stored.push(record) };
    const { host, logger } = await hostWith(sinkModule(broken), sinkModule(working));
    try {
      const session = host.openSession();
      const result = await session.call('bash', { command: 'exit 4', description: 'fail' });
      expect(result.isError).toBeFalsy();
      await session.call('echo', { text: 'x' });
      expect(stored.map((record) => record.tool)).toEqual(['bash', 'echo']);
      expect(logger.lines).toHaveLength(2);
      expect(logger.lines[0]).toMatch(/^audit: sink "broken" lost the record of call .* \(bash\): disk full$/);
      expect(sample(await metricsText(host), 'dsh_audit_failures_total')).toBe(2);
    } finally {
      await host.dispose();
    }
  });

  it('labels calls to unknown tools as one series in the metrics, whatever names are made up', async () => {
    const { host } = await hostWith();
    try {
      for (let i = 0; i < 20; i++) await host.call(`made-up-${i}` as string, {});
      const text = await metricsText(host);
      expect(sample(text, 'dsh_tool_calls_total{tool="(unknown)",outcome="error"}')).toBe(20);
      expect(text).not.toContain('made-up-');
    } finally {
      await host.dispose();
    }
  });

  it('gives each host a registry of its own', async () => {
    const a = await hostWith();
    const b = await hostWith();
    try {
      await a.host.call('echo', { text: 'a' });
      expect(sample(await metricsText(a.host), 'dsh_tool_calls_total{tool="echo",outcome="ok"}')).toBe(1);
      expect(sample(await metricsText(b.host), 'dsh_tool_calls_total{tool="echo",outcome="ok"}')).toBe(0);
    } finally {
      await a.host.dispose();
      await b.host.dispose();
    }
  });

  it('counts open sessions until they are disposed', async () => {
    const { host } = await hostWith();
    try {
      const one = host.openSession();
      host.openSession();
      expect(sample(await metricsText(host), 'dsh_sessions_active')).toBe(2);
      await one.dispose();
      expect(sample(await metricsText(host), 'dsh_sessions_active')).toBe(1);
    } finally {
      await host.dispose();
    }
  });
});
