import type { ServiceIdentifier } from 'inversify';

/** A readable name for a token: `ShellExecutor` for `Symbol.for('dsh.ShellExecutor')`. */
export function tokenName(token: ServiceIdentifier): string {
  if (typeof token === 'symbol') return (token.description ?? 'symbol').replace(/^dsh\./, '');
  if (typeof token === 'function') return token.name || 'anonymous class';
  return String(token);
}
