import type { Container } from 'inversify';
import { messageOf } from '../core/describe-value.js';
import { Logger } from '../providers/logging/logger.js';

/** Reports a session's failed disposer on the host's log (stderr without one); the session's other disposers still run. */
export function logDisposalFailure(container: Container, sessionId: string, what: string, error: unknown): void {
  const line = `session ${sessionId}: disposing ${what} failed: ${messageOf(error)}`;
  if (container.isBound(Logger)) container.get(Logger).warn(line);
  else process.stderr.write(`${line}\n`);
}
