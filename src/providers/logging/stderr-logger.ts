import { escapeForDisplay, escapeJsonForDisplay } from '../../core/display-text.js';
import type { LogFields, Logger } from './logger.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

/** `text`: `dsh-tools <level>: <message> key=value…` (the default); `json`: one JSON object per line with a timestamp. */
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];
export const LOG_LEVELS: readonly LogLevel[] = LEVELS;

/**
 * Logs to stderr (stdout may carry a protocol, e.g. MCP over stdio), one
 * line per event: messages quote commands, paths and client input, so
 * every control, bidi and line-break character is escaped
 * (`src/core/display-text.ts`) — nothing logged can drive the terminal or
 * forge a second log line. The JSON form (`{"time","level","msg",…fields}`)
 * is for log shippers; the text form stays as it always was, without a
 * timestamp (journald and container runtimes add their own).
 */
export class StderrLogger implements Logger {
  private readonly threshold: number;

  constructor(
    level: LogLevel = 'warn',
    private readonly format: LogFormat = 'text',
    private readonly out: (line: string) => void = (line) => void process.stderr.write(line),
  ) {
    this.threshold = LEVELS.indexOf(level);
  }

  debug(message: string, fields?: LogFields): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.write('error', message, fields);
  }

  private write(level: LogLevel, message: string, fields?: LogFields): void {
    if (LEVELS.indexOf(level) < this.threshold) return;
    this.out(this.format === 'json' ? jsonLine(level, String(message), fields) : textLine(level, String(message), fields));
  }
}

function jsonLine(level: LogLevel, msg: string, fields: LogFields = {}): string {
  const known: Record<string, unknown> = {};
  // A field cannot overwrite the line's own time, level or message.
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && !(key in RESERVED)) known[key] = value;
  return `${escapeJsonForDisplay(JSON.stringify({ time: new Date().toISOString(), level, msg, ...known }))}\n`;
}

const RESERVED = { time: 1, level: 1, msg: 1 };

function textLine(level: LogLevel, message: string, fields: LogFields = {}): string {
  let line = `dsh-tools ${level}: ${escapeForDisplay(message)}`;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text = typeof value === 'string' && (value === '' || /[\s"=]/.test(value)) ? JSON.stringify(value) : String(value);
    line += ` ${escapeForDisplay(key)}=${escapeForDisplay(text)}`;
  }
  return `${line}\n`;
}
