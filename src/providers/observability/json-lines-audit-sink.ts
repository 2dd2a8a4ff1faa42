import { closeSync, constants, openSync } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEvent, AuditRecord, AuditSink } from './audit-sink.js';

interface Queued {
  readonly line: string;
  readonly stored: () => void;
  readonly failed: (error: unknown) => void;
}

/** A `reopen()` in the queue: records before it go to the file open now, records after it to the reopened one. */
interface Reopen {
  readonly reopen: true;
  readonly stored: () => void;
  readonly failed: (error: unknown) => void;
}

/** Told when the file behind the sink's path changed under it (removed, or moved away and replaced). */
type ReopenNotice = (message: string) => void;

/**
 * Appends one JSON record per line to a file, created 0600. Fsync'd per
 * batch: records that arrive while a write is on its way go out together in
 * the next single write and share its fsync; each `write` resolves once its
 * own record is fsync'd. So a burst of concurrent calls costs one fsync per
 * batch instead of one each, and no call answers before its record is on
 * disk. The file is opened without following a symlink, must be a regular
 * file, and is reopened after a failure (so a full disk or a removed
 * directory fails those records, not every later one).
 *
 * Before each batch the path is checked against the open file (device and
 * inode): a file removed or moved away (`rm`, logrotate's `create` mode)
 * would otherwise swallow every later record unseen, so the sink opens the
 * path again and says so. `reopen()` (SIGHUP, docs/operations.md) does the
 * same on request, between two batches, so no record is split or lost.
 */
export class JsonLinesAuditSink implements AuditSink {
  readonly name: string;
  readonly file: string;
  private handle?: Promise<OpenFile>;
  private queue: Array<Queued | Reopen> = [];
  private flushing?: Promise<void>;
  private closed = false;

  constructor(
    file: string,
    private readonly notice?: ReopenNotice,
  ) {
    this.file = path.resolve(file);
    this.name = `audit file ${this.file}`;
    createIfMissing(this.file);
  }

  write(record: AuditRecord): Promise<void> {
    return this.append(record);
  }

  /** Server events share the file and its ordering: one line each, named by `event`. */
  writeEvent(event: AuditEvent): Promise<void> {
    return this.append(event);
  }

  private append(record: AuditRecord | AuditEvent): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the audit file is closed'));
    const line = `${JSON.stringify(record)}\n`;
    return new Promise<void>((stored, failed) => {
      this.queue.push({ line, stored, failed });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Closes the file once the records queued so far are stored, and opens the
   * path again (created if it is gone): records written before go to the old
   * file, records after to the one at the path now.
   */
  reopen(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the audit file is closed'));
    return new Promise<void>((stored, failed) => {
      this.queue.push({ reopen: true, stored, failed });
      this.flushing ??= this.flush();
    });
  }

  /** Waits for queued records, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    await this.drop();
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      // One batch: every record up to the next reopen request (they belong to the file open now).
      const upTo = this.queue.findIndex((item) => 'reopen' in item);
      const batch = this.queue.splice(0, upTo < 0 ? this.queue.length : Math.max(upTo, 1));
      if (!('reopen' in batch[0]!)) {
        await this.writeBatch(batch as Queued[]);
        continue;
      }
      await this.drop();
      try {
        await (this.handle = openAuditFile(this.file));
        batch[0]!.stored();
      } catch (error) {
        this.handle = undefined;
        batch[0]!.failed(auditFileError(this.file, error));
      }
    }
    this.flushing = undefined;
  }

  private async writeBatch(batch: readonly Queued[]): Promise<void> {
    try {
      let file = await (this.handle ??= openAuditFile(this.file));
      if (!(await stillAtPath(file, this.file))) {
        await this.drop();
        this.notice?.(`audit: ${this.file} was removed or replaced; writing to a new file at that path`);
        file = await (this.handle = openAuditFile(this.file));
      }
      await file.handle.write(batch.map((queued) => queued.line).join(''));
      await file.handle.sync();
      for (const queued of batch) queued.stored();
    } catch (error) {
      void this.drop();
      const reason = auditFileError(this.file, error);
      for (const queued of batch) queued.failed(reason);
    }
  }

  private async drop(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.handle.close().catch(() => undefined);
  }
}

interface OpenFile {
  readonly handle: FileHandle;
  readonly dev: number;
  readonly ino: number;
}

/**
 * The file exists from the start, not from the first record: the server's
 * files are masked from commands only while they exist when a command starts
 * (docs/security.md), and a second call must not start before the first
 * call's record created it. A failure here is reported by the first write.
 */
function createIfMissing(file: string): void {
  try {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  } catch {
    // The write path opens it again and says why it cannot.
  }
}

async function openAuditFile(file: string): Promise<OpenFile> {
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    return { handle, dev: stat.dev, ino: stat.ino };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** True while `file` still names the open file (one `lstat` per batch, far cheaper than its fsync). */
async function stillAtPath(open: OpenFile, file: string): Promise<boolean> {
  const stat = await lstat(file).catch(() => undefined);
  return stat !== undefined && stat.dev === open.dev && stat.ino === open.ino;
}

/** A plain Error whose message names the file and the system's reason. */
function auditFileError(file: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') return new Error(`${file} is a symbolic link; the audit file is never opened through one`);
  const message = (error as { message?: unknown } | undefined)?.message;
  return new Error(typeof message === 'string' ? message : String(error));
}
