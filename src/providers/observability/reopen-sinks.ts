import type { ServiceIdentifier } from 'inversify';
import { messageOf } from '../../core/describe-value.js';
import type { Logger } from '../logging/logger.js';
import { AuditSinks } from './audit-observer.js';

/**
 * Asks every bound audit sink that writes a file to reopen it at its
 * configured path (what SIGHUP does after a log rotation, docs/operations.md),
 * one log line per sink: `info` when it did, `error` when it could not (the
 * sink then tries again with its next record). Resolves with how many reopened.
 */
export async function reopenFileSinks(
  source: { isBound(token: ServiceIdentifier): boolean; get<T>(token: ServiceIdentifier<T>): T },
  logger?: Logger,
): Promise<number> {
  const bound = source.isBound(AuditSinks) ? source.get(AuditSinks)() : [];
  const sinks = bound.filter((sink) => typeof sink?.reopen === 'function');
  const results = await Promise.all(
    sinks.map(async (sink) => {
      try {
        await sink.reopen!();
        logger?.info(`audit: reopened ${sink.name}`);
        return 1;
      } catch (error) {
        logger?.error(`audit: could not reopen ${sink.name}: ${messageOf(error)}`);
        return 0;
      }
    }),
  );
  return results.reduce<number>((sum, n) => sum + n, 0);
}
