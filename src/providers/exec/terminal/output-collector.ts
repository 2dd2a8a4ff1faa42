import type { Redactor } from '../../output-filter/redactor.js';
import { TextFilter, type FilteredText } from '../../output-filter/text-filter.js';
import { collapseTerminalText } from '../../output-filter/line-collapse.js';

/** Terminal text as a model should read it: escape codes removed, CR+LF → LF, redrawn lines collapsed. */
export function normalizeTerminalText(raw: string): string {
  return collapseTerminalText(raw);
}

/**
 * Keeps the beginning of a command's output, at most `capChars` characters
 * of the model's view (redacted and collapsed, see `TextFilter`, so redraws
 * do not fill the cap); everything after is only counted, so memory stays
 * bounded whatever the command prints.
 */
export class OutputCollector {
  private readonly parts: string[] = [];
  private readonly filter: TextFilter;
  private kept = 0;
  private dropped = 0;

  constructor(
    private readonly capChars: number,
    redactor?: Redactor,
  ) {
    this.filter = new TextFilter(redactor);
  }

  append(raw: string): void {
    if (raw !== '') this.keep(this.filter.push(raw));
  }

  /**
   * The retained text (the filters flushed: a collector is taken once), how
   * many characters were not retained, and how many redraws were collapsed.
   */
  take(): { output: string; droppedChars: number; collapsedUpdates: number } {
    this.keep(this.filter.end());
    return { output: this.parts.join(''), droppedChars: this.dropped, collapsedUpdates: this.filter.collapsedUpdates };
  }

  private keep({ clean }: FilteredText): void {
    if (clean === '') return;
    const room = this.capChars - this.kept;
    if (clean.length <= room) {
      this.parts.push(clean);
      this.kept += clean.length;
      return;
    }
    if (room > 0) this.parts.push(clean.slice(0, room));
    this.kept = this.capChars;
    this.dropped += clean.length - room;
  }
}
