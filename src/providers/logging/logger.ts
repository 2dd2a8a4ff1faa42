import type { ServiceIdentifier } from 'inversify';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const Logger: ServiceIdentifier<Logger> = Symbol.for('dsh.Logger');

export interface Clock {
  now(): number;
}

export const Clock: ServiceIdentifier<Clock> = Symbol.for('dsh.Clock');
