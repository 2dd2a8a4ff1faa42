// `ShellExecutor.resolve` was renamed `checkRequest` in 0.2; for one deprecation
// cycle a provider may still implement only the old name.
import { providerKind, warnDeprecatedOnce } from '../../logging/deprecation.js';
import type { Logger } from '../../logging/logger.js';
import type { ExecRequest, ExecSpec, ShellExecutor } from './shell-executor.js';

/** `executor.checkRequest(request)`, or its deprecated `resolve` (warned about once per provider class) when it has only that. */
export function checkRequestWith(executor: ShellExecutor, request: ExecRequest, logger?: Logger): ExecSpec {
  if (typeof executor.checkRequest === 'function') return executor.checkRequest(request);
  if (typeof executor.resolve === 'function') {
    const name = nameOf(executor);
    warnDeprecatedOnce(providerKind(executor), `ShellExecutor ${name} implements resolve(), renamed checkRequest() in 0.2; resolve() is no longer called after the next minor release`, logger);
    return executor.resolve(request);
  }
  throw new Error(`ShellExecutor ${nameOf(executor)} implements neither checkRequest() nor resolve()`);
}

function nameOf(provider: object): string {
  const kind = providerKind(provider);
  return typeof kind === 'function' && kind.name !== '' ? `"${kind.name}"` : '(a plain object)';
}
