import type { ExecProgress } from './shell-executor.js';
import { monotonicMs } from '../../../core/monotonic-ms.js';

/** Default minimum spacing of progress reports. */
const PROGRESS_INTERVAL_MS = 250;

/** Bytes kept around the newest newline: enough for a readable last line, flat in memory. */
const LINE_WINDOW = 1024;
const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/**
 * Throttled progress of a running command: at most one report per interval,
 * and a trailing report so the latest state is not swallowed by the throttle.
 * Only built when a listener exists, so silent calls pay nothing. A listener
 * that throws is ignored: progress must never break the command.
 */
export class ProgressReporter {
  private bytes = 0;
  private lastLine: string | undefined;
  /** Per stream (stdout, stderr): bytes after its newest newline, at most LINE_WINDOW. */
  private readonly partial: [Buffer, Buffer] = [EMPTY, EMPTY];
  private lastReport = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly listener: (progress: ExecProgress) => void,
    private readonly intervalMs: number = PROGRESS_INTERVAL_MS,
  ) {}

  /** Counts a chunk of output; `stream` keeps lines of stdout (0) and stderr (1) from being spliced. */
  feed(chunk: Buffer, stream: 0 | 1 = 0): void {
    if (this.stopped) return;
    this.bytes += chunk.length;
    this.trackLine(chunk, stream);
    if (this.timer === undefined) {
      const wait = Math.max(0, this.lastReport + this.intervalMs - monotonicMs());
      this.timer = setTimeout(() => this.report(), wait);
      this.timer.unref();
    }
  }

  /** Stops reporting; a pending report is dropped (the caller has the final result). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private report(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.lastReport = monotonicMs();
    const progress: ExecProgress =
      this.lastLine === undefined ? { bytes: this.bytes } : { bytes: this.bytes, lastLine: this.lastLine };
    try {
      this.listener(progress);
    } catch {
      // A broken listener must not fail the command it observes.
    }
  }

  private trackLine(chunk: Buffer, stream: 0 | 1): void {
    const partial = this.partial[stream];
    const newline = chunk.lastIndexOf(NEWLINE);
    if (newline < 0) {
      const joined = chunk.length >= LINE_WINDOW || partial.length === 0 ? chunk : Buffer.concat([partial, chunk]);
      this.partial[stream] = Buffer.from(keepLast(joined));
      return;
    }
    const head = chunk.subarray(Math.max(0, newline - LINE_WINDOW), newline);
    const region = head.length < LINE_WINDOW && partial.length > 0 ? Buffer.concat([partial, head]) : head;
    const line = lastNonEmptyLine(region);
    if (line !== undefined) this.lastLine = line;
    // Copy: a view would pin the whole pipe chunk until the next newline.
    this.partial[stream] = Buffer.from(keepLast(chunk.subarray(newline + 1)));
  }
}

function keepLast(bytes: Buffer): Buffer {
  return bytes.length > LINE_WINDOW ? bytes.subarray(bytes.length - LINE_WINDOW) : bytes;
}

function lastNonEmptyLine(bytes: Buffer): string | undefined {
  const lines = bytes.toString('utf8').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    // A carriage return redraws the line (progress bars): the last drawing is what a terminal shows.
    const drawn = lines[i]!.split('\r').filter((segment) => segment.trim() !== '');
    // A window cut can start mid-character; drop the replacement characters that leaves.
    const line = drawn[drawn.length - 1]?.replace(/^\uFFFD+/, '').trimEnd();
    if (line !== undefined && line.trim() !== '') return line;
  }
  return undefined;
}
