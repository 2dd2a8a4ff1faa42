// The JSON-lines audit file: whole lines under concurrency, 0600, appended, failures reported per record.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AuditRecord } from '../../../src/providers/observability/audit-sink.js';
import { JsonLinesAuditSink } from '../../../src/providers/observability/json-lines-audit-sink.js';
import { auditLines, tempDir } from '../../support/observability-kit.js';

function record(callId: string): AuditRecord {
  return {
    time: new Date(0).toISOString(),
    callId,
    caller: null,
    session: 's',
    clientSession: null,
    peer: null,
    tool: 'bash',
    command: `echo ${'x'.repeat(5000)}\nline two`,
    workdir: '/w',
    mode: 'local',
    sandboxMode: null,
    policy: null,
    approval: null,
    answeredBy: null,
    approvalDetail: null,
    outcome: 'ok',
    exitCode: 0,
    signal: null,
    durationMs: 1,
    outputBytes: { stdout: 1, stderr: 0, pty: 0, task: 0 },
    leftoversKilled: 0,
    taskId: null,
  };
}

describe('JsonLinesAuditSink', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('observe-sink-')));
  afterEach(() => tmp.remove());

  it('appends one whole line per record, in order, even for 200 concurrent writes, and creates the file 0600', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    writeFileSync(file, '{"earlier":true}\n', { mode: 0o600 });
    const sink = new JsonLinesAuditSink(file);
    await Promise.all(Array.from({ length: 200 }, (_, i) => sink.write(record(`c${i}`))));
    await sink.close();
    const lines = auditLines(file);
    expect(lines).toHaveLength(201);
    expect(lines.slice(1).map((line) => line.callId)).toEqual(Array.from({ length: 200 }, (_, i) => `c${i}`));
    expect(lines[1]!.command).toContain('\nline two');

    const fresh = path.join(tmp.dir, 'fresh.jsonl');
    const other = new JsonLinesAuditSink(fresh);
    await other.write(record('one'));
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    await other.close();
  });

  it('rejects the records it could not store and stores later ones once the file can be written again', async () => {
    const dir = path.join(tmp.dir, 'logs');
    const file = path.join(dir, 'audit.jsonl');
    const sink = new JsonLinesAuditSink(file);
    await expect(sink.write(record('lost'))).rejects.toThrow(/ENOENT/);
    mkdirSync(dir);
    await sink.write(record('kept'));
    await sink.close();
    expect(auditLines(file).map((line) => line.callId)).toEqual(['kept']);
    await expect(sink.write(record('after close'))).rejects.toThrow('the audit file is closed');
  });

  it('refuses a path that is not a regular file', async () => {
    const sink = new JsonLinesAuditSink(tmp.dir);
    await expect(sink.write(record('x'))).rejects.toThrow(/EISDIR|not a regular file/);
    await sink.close();
  });
});
