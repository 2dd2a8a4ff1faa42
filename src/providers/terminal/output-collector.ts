import { stripAnsi } from './ansi.js';

/** Terminal text as a model should read it: ANSI/OSC sequences removed, CR+LF (and CR CR LF) → LF. */
export function normalizeTerminalText(raw: string): string {
  return stripAnsi(raw).replace(/\r+\n/g, '\n');
}

/**
 * Keeps the beginning of a command's output, at most `capChars` characters
 * of raw terminal text; everything after is only counted (as normalized
 * characters), so memory stays bounded whatever the command prints.
 */
export class OutputCollector {
  private readonly parts: string[] = [];
  private kept = 0;
  private dropped = 0;
  /** True once the cap is reached; later text is only counted. */
  private full = false;

  constructor(private readonly capChars: number) {}

  append(raw: string): void {
    if (raw === '') return;
    if (!this.full) {
      const room = this.capChars - this.kept;
      if (raw.length <= room) {
        this.parts.push(raw);
        this.kept += raw.length;
        return;
      }
      this.parts.push(raw.slice(0, room));
      this.kept = this.capChars;
      this.full = true;
      raw = raw.slice(room);
    }
    this.dropped += normalizeTerminalText(raw).length;
  }

  /** Normalized retained text, and how many characters were not retained. */
  take(): { output: string; droppedChars: number } {
    return { output: normalizeTerminalText(this.parts.join('')), droppedChars: this.dropped };
  }
}
