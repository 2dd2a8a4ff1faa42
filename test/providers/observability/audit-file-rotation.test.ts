// The audit file under rotation: reopen on request (SIGHUP) between batches, and a removed or replaced path noticed before the next write.
import { existsSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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
    command: 'true',
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
    outputBytes: { stdout: 0, stderr: 0, pty: 0, task: 0 },
    leftoversKilled: 0,
    taskId: null,
  };
}

const ids = (file: string) => auditLines(file).map((line) => line.callId);

describe('JsonLinesAuditSink rotation', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('observe-rotate-')));
  afterEach(() => tmp.remove());

  it('rotate then reopen(): earlier records stay in the moved file, later ones go to a new 0600 file at the path, no warning', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const notices: string[] = [];
    const sink = new JsonLinesAuditSink(file, (message) => notices.push(message));
    await Promise.all([sink.write(record('a')), sink.write(record('b'))]);
    renameSync(file, `${file}.1`);
    await sink.reopen();
    await Promise.all([sink.write(record('c')), sink.write(record('d'))]);
    await sink.close();
    expect(ids(`${file}.1`)).toEqual(['a', 'b']);
    expect(ids(file)).toEqual(['c', 'd']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(notices).toEqual([]);
  });

  it('records queued before a reopen() are written before it, those queued after it after it', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const sink = new JsonLinesAuditSink(file);
    const order: string[] = [];
    await Promise.all([
      sink.write(record('a')).then(() => order.push('a')),
      sink.reopen().then(() => order.push('reopen')),
      sink.write(record('b')).then(() => order.push('b')),
    ]);
    await sink.close();
    expect(order).toEqual(['a', 'reopen', 'b']);
    expect(ids(file)).toEqual(['a', 'b']);
  });

  it('reopen() with nothing written creates the new file at once (as logrotate expects)', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const sink = new JsonLinesAuditSink(file);
    await sink.write(record('a'));
    renameSync(file, `${file}.1`);
    expect(existsSync(file)).toBe(false);
    await sink.reopen();
    expect(statSync(file).size).toBe(0);
    await sink.close();
  });

  it('a concurrent burst around a rename and reopen: every record in exactly one file, none lost or twice', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const sink = new JsonLinesAuditSink(file);
    const writes: Array<Promise<void>> = [];
    for (let i = 0; i < 100; i++) {
      writes.push(sink.write(record(`r${i}`)));
      if (i === 50) {
        await writes[0];
        renameSync(file, `${file}.1`);
        writes.push(sink.reopen());
      }
    }
    await Promise.all(writes);
    await sink.close();
    const all = [...ids(`${file}.1`), ...ids(file)];
    expect(all).toEqual(Array.from({ length: 100 }, (_, i) => `r${i}`));
    expect(ids(file).length).toBeGreaterThan(0);
  });

  it('rm of the file: the next record goes to a new file at the path, with a notice; nothing is lost', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const notices: string[] = [];
    const sink = new JsonLinesAuditSink(file, (message) => notices.push(message));
    await sink.write(record('a'));
    rmSync(file);
    await sink.write(record('b'));
    await sink.write(record('c'));
    await sink.close();
    expect(ids(file)).toEqual(['b', 'c']);
    expect(notices).toEqual([`audit: ${file} was removed or replaced; writing to a new file at that path`]);
  });

  it('a path replaced by another file (logrotate `create` without a HUP): later records go to the file at the path', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const sink = new JsonLinesAuditSink(file);
    await sink.write(record('a'));
    renameSync(file, `${file}.1`);
    writeFileSync(file, '', { mode: 0o600 });
    await sink.write(record('b'));
    await sink.close();
    expect(ids(`${file}.1`)).toEqual(['a']);
    expect(ids(file)).toEqual(['b']);
  });

  it('a path replaced by a symlink is refused, the record is reported lost, never written through the link', async () => {
    const file = path.join(tmp.dir, 'audit.jsonl');
    const target = path.join(tmp.dir, 'elsewhere');
    writeFileSync(target, '');
    const sink = new JsonLinesAuditSink(file);
    await sink.write(record('a'));
    rmSync(file);
    symlinkSync(target, file);
    await expect(sink.write(record('b'))).rejects.toThrow(/symbolic link/);
    expect(statSync(target).size).toBe(0);
    await sink.close();
  });

  it('reopen() that cannot open the path rejects with the reason; the next record once the directory is back is stored', async () => {
    const dir = path.join(tmp.dir, 'logs');
    mkdirSync(dir);
    const file = path.join(dir, 'audit.jsonl');
    const sink = new JsonLinesAuditSink(file);
    await sink.write(record('a'));
    rmSync(dir, { recursive: true });
    await expect(sink.reopen()).rejects.toThrow(/ENOENT/);
    mkdirSync(dir);
    await sink.write(record('b'));
    await sink.close();
    expect(ids(file)).toEqual(['b']);
    await expect(sink.reopen()).rejects.toThrow(/closed/);
  });
});
