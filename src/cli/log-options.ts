import { InvalidArgumentError, type Command } from 'commander';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../providers/logging/stderr-logger.js';
import type { CliEnvironment } from './cli-environment.js';

/** `--log-level` and `--log-format` of `serve`: over the config file's `logLevel` and `logFormat`. */
export interface LogFlags {
  readonly logLevel?: LogLevel;
  readonly logFormat?: LogFormat;
}

function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
    return value as T;
  };
}

export function addLogOptions(command: Command): Command {
  return command
    .option('--log-level <level>', 'what reaches stderr: debug, info, warn or error (default: the config file\'s logLevel, else warn)', oneOf(LOG_LEVELS))
    .option('--log-format <format>', 'stderr lines as text (default) or json (one object per line, with a timestamp)', oneOf(LOG_FORMATS));
}

/** The composition with the log flags applied. */
export function withLogFlags(environment: CliEnvironment, flags: LogFlags): CliEnvironment {
  return {
    ...environment,
    ...(flags.logLevel !== undefined ? { logLevel: flags.logLevel } : {}),
    ...(flags.logFormat !== undefined ? { logFormat: flags.logFormat } : {}),
  };
}
