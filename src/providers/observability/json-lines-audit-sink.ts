import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AuditRecord, AuditSink } from './audit-sink.js';

interface Queued {
  readonly line: string;
  readonly stored: () => void;
  readonly failed: (error: unknown) => void;
}

/**
 * Appends one JSON record per line to a file, created 0600. Fsync'd per
 * batch: records that arrive while a write is on its way go out together in
 * the next single write and share its fsync; each `write` resolves once its
 * own record is fsync'd. So a burst of concurrent calls costs one fsync per
 * batch instead of one each, and no call answers before its record is on
 * disk. The file is opened without following a symlink, must be a regular
 * file, and is reopened after a failure (so a full disk or a removed
 * directory fails those records, not every later one).
 */
export class JsonLinesAuditSink implements AuditSink {
  readonly name: string;
  readonly file: string;
  private handle?: Promise<FileHandle>;
  private queue: Queued[] = [];
  private flushing?: Promise<void>;
  private closed = false;

  constructor(file: string) {
    this.file = path.resolve(file);
    this.name = `audit file ${this.file}`;
  }

  write(record: AuditRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the audit file is closed'));
    const line = `${JSON.stringify(record)}\n`;
    return new Promise<void>((stored, failed) => {
      this.queue.push({ line, stored, failed });
      this.flushing ??= this.flush();
    });
  }

  /** Waits for queued records, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.close();
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        const handle = await (this.handle ??= openAuditFile(this.file));
        await handle.write(batch.map((queued) => queued.line).join(''));
        await handle.sync();
        for (const queued of batch) queued.stored();
      } catch (error) {
        const handle = this.handle;
        this.handle = undefined;
        void handle?.then((h) => h.close()).catch(() => undefined);
        const reason = auditFileError(this.file, error);
        for (const queued of batch) queued.failed(reason);
      }
    }
    this.flushing = undefined;
  }
}

async function openAuditFile(file: string): Promise<FileHandle> {
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A plain Error whose message names the file and the system's reason. */
function auditFileError(file: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') return new Error(`${file} is a symbolic link; the audit file is never opened through one`);
  const message = (error as { message?: unknown } | undefined)?.message;
  return new Error(typeof message === 'string' ? message : String(error));
}
