import type { Logger } from './logger.js';

const warned = new WeakSet<object>();

/**
 * Warns once per `about` (a provider's class, or the provider itself when it
 * has none of its own) that it uses a deprecated name: through the host's
 * `Logger` when one is bound, else as a Node `DeprecationWarning`.
 */
export function warnDeprecatedOnce(about: object, message: string, logger?: Logger): void {
  if (warned.has(about)) return;
  warned.add(about);
  if (logger) logger.warn(`deprecated: ${message}`);
  else process.emitWarning(message, 'DeprecationWarning');
}

/** What a deprecation warning is keyed on: the provider's class, or the provider itself for a plain object. */
export function providerKind(provider: object): object {
  const ctor = (provider as { constructor?: unknown }).constructor;
  return typeof ctor === 'function' && ctor !== Object ? ctor : provider;
}
