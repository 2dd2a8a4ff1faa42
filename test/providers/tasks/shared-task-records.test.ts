// A shared session's task records: ids taken by mkdir, unique across takers, going on from the highest.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SharedTaskRecords } from '../../../src/providers/tasks/shared-task-records.js';

describe('shared task records', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-tr-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('hands out each id once, whichever instance (replica) asks, per kind', () => {
    const a = new SharedTaskRecords(dir);
    const b = new SharedTaskRecords(dir);
    expect([a.allocate('bash'), b.allocate('bash'), a.allocate('bash'), b.allocate('other')]).toEqual(['bash-1', 'bash-2', 'bash-3', 'other-1']);
    expect(a.ids().sort()).toEqual(['bash-1', 'bash-2', 'bash-3', 'other-1']);
  });

  it('creates a file once, writes whole, and refuses a path-like id', () => {
    const records = new SharedTaskRecords(dir);
    const id = records.allocate('bash');
    expect(records.create(id, 'kill.json', { by: 'model' })).toBe(true);
    expect(records.create(id, 'kill.json', { by: 'operator' })).toBe(false);
    expect(records.read(id, 'kill.json')).toEqual({ by: 'model' });
    records.write(id, 'read.json', { out: 3, err: 0 });
    expect(records.read(id, 'read.json')).toEqual({ out: 3, err: 0 });
    expect(records.read('../x-1', 'meta.json')).toBeUndefined();
    expect(() => records.write('../x-1', 'meta.json', {})).toThrow('invalid task id');
  });
});
