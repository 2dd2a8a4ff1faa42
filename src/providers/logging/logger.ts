import type { ServiceIdentifier } from 'inversify';

/**
 * Facts of one logged event besides its message (`event`, `peer`, `status`…):
 * a JSON logger writes them as fields of the line, a text one as `key=value`
 * after the message. Loggers that predate them may ignore them.
 */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const Logger: ServiceIdentifier<Logger> = Symbol.for('dsh.Logger');

export interface Clock {
  now(): number;
}

export const Clock: ServiceIdentifier<Clock> = Symbol.for('dsh.Clock');
