import { constants as osConstants } from 'node:os';
import type { WorkdirProblem } from './workdir-check.js';

/** `\x1fdsh-status:<key>:` opens every keyed status record (`mark`: another byte around the record). */
const statusOpening = (key: string, mark = '\x1f'): string => `${mark}dsh-status:${key}:`;

/** `<field>:<value>` after the opening: `left:<digits>`, `signal:<digits>` or `workdir:<problem>`. */
const BODY = /^(left|signal|workdir):([a-z0-9]{1,9})$/;
const LONGEST_BODY = 'workdir:'.length + 9;

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

/** `SIGTERM` for 15; undefined for a number that names no signal. */
export function signalName(signal: number): string | undefined {
  return SIGNAL_NAMES.get(signal);
}

/**
 * Takes a wrapper's keyed status records (the container exec wrapper, the
 * persistent shell's status launcher) out of its stream, wherever they land, and passes everything else
 * through byte for byte. A record counts only with this exec's key, which
 * the command cannot read: `$DSH_EXEC_TAG`, a record of another exec or one
 * printed with a guessed key stays ordinary output.
 */
export class ExecStatusReader {
  private readonly opening: Buffer;
  private held: Buffer = Buffer.alloc(0);
  private left = 0;
  private ended = false;
  private signalNumber: number | undefined;
  private workdir: WorkdirProblem | undefined;

  private readonly mark: number;

  /** `mark` is the byte around each record (`\x1f`; the persistent shell's launcher uses `\x1e`, as its markers are `\x1f`). */
  constructor(key: string, mark = '\x1f') {
    this.opening = Buffer.from(statusOpening(key, mark), 'latin1');
    this.mark = mark.charCodeAt(0);
  }

  /** Processes the wrapper reported killing when the command ended (0 until its record arrives). */
  get leftovers(): number {
    return this.left;
  }

  /** The wrapper's last record arrived: it saw the command end and said how (`signal`). */
  get complete(): boolean {
    return this.ended;
  }

  /** The signal that killed the command, when the wrapper said so (else it exited with the exec's status). */
  get signal(): number | undefined {
    return this.signalNumber;
  }

  /** Why the wrapper could not enter the workdir, when it said so. */
  get workdirProblem(): WorkdirProblem | undefined {
    return this.workdir;
  }

  /** The output bytes of `chunk` (and of earlier held ones); a possible record start is held back. */
  push(chunk: Buffer): Buffer {
    let data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    this.held = Buffer.alloc(0);
    if (data.indexOf(this.mark) < 0) return data;
    for (let from = 0; ; ) {
      const at = data.indexOf(this.opening, from);
      if (at < 0) break;
      const close = data.indexOf(this.mark, at + this.opening.length);
      if (close < 0) break;
      const body = BODY.exec(data.toString('latin1', at + this.opening.length, close));
      if (body === null || !this.take(body[1]!, body[2]!)) {
        from = at + 1;
        continue;
      }
      data = Buffer.concat([data.subarray(0, at), data.subarray(close + 1)]);
      from = at;
    }
    const keep = this.partialStart(data);
    this.held = data.subarray(keep);
    return data.subarray(0, keep);
  }

  /** At the end of the stream: whatever was held back is output after all. */
  end(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }

  private take(field: string, value: string): boolean {
    if (field === 'left' && /^\d+$/.test(value)) {
      this.left = Number(value);
      this.ended = true;
      return true;
    }
    if (field === 'signal' && /^\d+$/.test(value)) {
      // The last record counts; 0 says the process exited rather than was killed.
      this.signalNumber = Number(value) === 0 ? undefined : Number(value);
      return true;
    }
    if (field === 'workdir' && (value === 'missing' || value === 'notdir' || value === 'denied')) {
      this.workdir = value;
      return true;
    }
    return false;
  }

  /** Where an unfinished record (a prefix of the opening, or the opening and a short body) starts; `data.length` when none. */
  private partialStart(data: Buffer): number {
    const longest = this.opening.length + LONGEST_BODY;
    for (let at = data.lastIndexOf(this.mark); at >= 0 && at >= data.length - longest; at = at === 0 ? -1 : data.lastIndexOf(this.mark, at - 1)) {
      const tail = data.subarray(at);
      const head = tail.subarray(0, Math.min(tail.length, this.opening.length));
      if (!head.equals(this.opening.subarray(0, head.length))) continue;
      if (/^[a-z0-9:]*$/.test(tail.toString('latin1', head.length))) return at;
    }
    return data.length;
  }
}
