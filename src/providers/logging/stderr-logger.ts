import { escapeForDisplay } from '../../core/display-text.js';
import type { Logger } from './logger.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

/**
 * Logs to stderr (stdout may carry a protocol, e.g. MCP over stdio), one
 * line per message: messages quote commands, paths and client input, so
 * every control, bidi and line-break character is escaped
 * (`src/core/display-text.ts`) — nothing logged can drive the terminal or
 * forge a second log line.
 */
export class StderrLogger implements Logger {
  private readonly threshold: number;

  constructor(level: LogLevel = 'warn') {
    this.threshold = LEVELS.indexOf(level);
  }

  debug(message: string): void {
    this.write('debug', message);
  }
  info(message: string): void {
    this.write('info', message);
  }
  warn(message: string): void {
    this.write('warn', message);
  }
  error(message: string): void {
    this.write('error', message);
  }

  private write(level: LogLevel, message: string): void {
    if (LEVELS.indexOf(level) >= this.threshold) process.stderr.write(`dsh-tools ${level}: ${escapeForDisplay(String(message))}\n`);
  }
}
