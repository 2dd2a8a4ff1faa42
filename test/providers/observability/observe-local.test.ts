// Every call of a local host, one-shot and persistent, reaches observers, the audit file and the metrics once.
import { statSync } from 'node:fs';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost } from '../../../src/index.js';
import { auditLines, metricsText, observerModule, RecordingObserver, sample, tempDir } from '../../support/observability-kit.js';

describe.each(['oneshot', 'persistent'] as const)('a local host with an audit file (%s shell)', (shell) => {
  let host: DshHost;
  let tmp: ReturnType<typeof tempDir>;
  let file: string;
  const recording = new RecordingObserver();

  beforeAll(async () => {
    tmp = tempDir('observe-local-');
    file = path.join(tmp.dir, 'audit.jsonl');
    host = await createHost(
      ...localEnvironment({ shell, workspace: tmp.dir, audit: { file }, redact: { values: ['s3cr3t-value-42'] } }),
      observerModule(recording),
    );
  });
  afterAll(async () => {
    await host.dispose();
    tmp.remove();
  });

  it('writes one audit line, one start and one end event, and counts the call', async () => {
    const session = host.openSession({ cwd: tmp.dir, caller: 'team-a' });
    const ok = await session.call('bash', { command: 'echo hello; echo oops >&2; echo s3cr3t-value-42 >/dev/null', description: 'print two lines' });
    expect(ok.content[0]!.text).not.toMatch(/^Error/);
    const failed = await session.call('bash', { command: 'exit 3', description: 'fail with code 3' });
    expect(failed.isError).toBeFalsy();
    await session.dispose();

    const lines = auditLines(file);
    expect(lines).toHaveLength(2);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const [first, second] = lines;
    expect(first).toMatchObject({
      caller: 'team-a',
      session: session.id,
      tool: 'bash',
      command: 'echo hello; echo oops >&2; echo [redacted] >/dev/null',
      workdir: tmp.dir,
      mode: 'local',
      outcome: 'ok',
      exitCode: 0,
      leftoversKilled: 0,
    });
    expect(first!.command).not.toContain('s3cr3t');
    expect(first!.durationMs).toBeGreaterThan(0);
    expect(second).toMatchObject({ outcome: 'exit_nonzero', exitCode: 3 });
    if (shell === 'oneshot') expect(first!.outputBytes).toMatchObject({ stdout: 6, stderr: 5, pty: 0 });
    else expect(first!.outputBytes.pty).toBeGreaterThanOrEqual(11);

    expect(recording.starts.map((e) => e.callId)).toEqual(recording.ends.map((e) => e.callId));
    expect(recording.ends).toHaveLength(2);

    const text = await metricsText(host);
    expect(sample(text, 'dsh_tool_calls_total{tool="bash",outcome="ok"}')).toBe(1);
    expect(sample(text, 'dsh_tool_calls_total{tool="bash",outcome="exit_nonzero"}')).toBe(1);
    expect(sample(text, 'dsh_tool_call_duration_seconds_count{tool="bash"}')).toBe(2);
    expect(sample(text, 'dsh_sessions_active')).toBe(0);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('counts the leftover processes a command left behind', async () => {
    if (shell === 'persistent') return expect(shell).toBe('persistent'); // leftovers of the persistent shell die with it
    const before = sample(await metricsText(host), 'dsh_leftover_processes_killed_total');
    const session = host.openSession({ cwd: tmp.dir });
    await session.call('bash', { command: '(sleep 30 &); echo started', description: 'leave a process behind' });
    await session.dispose();
    const record = auditLines(file).at(-1)!;
    expect(record.leftoversKilled).toBe(1);
    expect(sample(await metricsText(host), 'dsh_leftover_processes_killed_total')).toBe(before + 1);
  });
});
