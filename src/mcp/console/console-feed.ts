import type { AuditEvent, AuditRecord, AuditSink } from '../../providers/observability/audit-sink.js';

/** One entry of the console's audit stream: a call's record, or an event. */
export type FeedEntry = AuditRecord | AuditEvent;

/** The console keeps this many most recent entries in memory. */
const FEED_SIZE = 2000;

/**
 * An audit sink that keeps the most recent records in memory for the
 * operator console (its audit view and each session's recent calls) and
 * tells the console's event streams about each new one. The records are the
 * audit log's own: commands redacted, never any output.
 */
export class ConsoleAuditFeed implements AuditSink {
  readonly name = 'console';
  private readonly entries: FeedEntry[] = [];
  private readonly listeners = new Set<(entry: FeedEntry) => void>();

  write(record: AuditRecord): Promise<void> {
    this.add(record);
    return Promise.resolve();
  }

  writeEvent(event: AuditEvent): Promise<void> {
    this.add(event);
    return Promise.resolve();
  }

  private add(entry: FeedEntry): void {
    this.entries.push(entry);
    if (this.entries.length > FEED_SIZE) this.entries.splice(0, this.entries.length - FEED_SIZE);
    for (const listener of [...this.listeners]) listener(entry);
  }

  /** The entries kept, oldest first. */
  recent(): readonly FeedEntry[] {
    return [...this.entries];
  }

  onEntry(listener: (entry: FeedEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
