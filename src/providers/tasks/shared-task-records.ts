import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** The session directory's sub-directory of task records (read-only in the sandbox, written by the replicas). */
const TASK_RECORDS_DIR = 'task-records';

/**
 * A shared session's task records (docs/shared-sessions.md#tasks): one
 * directory per task, `<sessionDir>/task-records/<id>/`, whose creation
 * (`mkdir`, refused when it exists) takes the id, so two replicas never
 * hand out the same one. Its files are written whole (a temporary file,
 * then a rename) or created exclusively.
 */
export class SharedTaskRecords {
  readonly root: string;

  constructor(readonly sessionDir: string) {
    this.root = path.join(sessionDir, TASK_RECORDS_DIR);
  }

  /** Takes the next free `<kind>-<n>` (after the highest one taken). */
  allocate(kind: string): string {
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    let n = 1 + Math.max(0, ...this.ids().filter((id) => id.startsWith(`${kind}-`)).map((id) => numberOf(id)));
    for (;;) {
      const id = `${kind}-${n}`;
      try {
        mkdirSync(path.join(this.root, id));
        return id;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        n++;
      }
    }
  }

  /** Every task id recorded, in no particular order. */
  ids(): string[] {
    try {
      return readdirSync(this.root).filter((name) => /-\d+$/.test(name));
    } catch {
      return [];
    }
  }

  read<T>(id: string, name: string): T | undefined {
    try {
      return JSON.parse(readFileSync(this.file(id, name), 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  write(id: string, name: string, value: unknown): void {
    const target = this.file(id, name);
    const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
    renameSync(temporary, target);
  }

  /** Creates `name` unless it exists; true when this call created it. */
  create(id: string, name: string, value: unknown): boolean {
    try {
      writeFileSync(this.file(id, name), JSON.stringify(value), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  has(id: string, name: string): boolean {
    try {
      return statSync(this.file(id, name)).isFile();
    } catch {
      return false;
    }
  }

  /** Forgets a task (its record only: the output files stay with the sandbox). */
  remove(id: string): void {
    rmSync(path.join(this.root, id), { recursive: true, force: true });
  }

  private file(id: string, name: string): string {
    if (!/^[A-Za-z0-9_.-]+-\d+$/.test(id) || id.includes('..')) throw new Error(`invalid task id ${JSON.stringify(id)}`);
    return path.join(this.root, id, name);
  }
}

function numberOf(id: string): number {
  return Number(/-(\d+)$/.exec(id)?.[1] ?? 0);
}
