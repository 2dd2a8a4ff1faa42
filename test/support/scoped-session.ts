import { DisposableScope } from '../../src/core/session-scope.js';
import type { SessionContext } from '../../src/core/tool-contract.js';

export interface ScopedSession extends SessionContext {
  readonly scope: DisposableScope;
  /** Marks the session disposed, then disposes its scope (newest first), like a host session. */
  dispose(): Promise<void>;
}

/** A session with a scope of its own, like a host session; a failing disposer is recorded in `failures`. */
export function scopedSession(id: string, failures: string[] = []): ScopedSession {
  const scope = new DisposableScope((name, error) => failures.push(`${name}: ${String(error)}`));
  let disposed = false;
  return {
    id,
    scope,
    get disposed() {
      return disposed;
    },
    onDispose: (hook) => scope.add('an onDispose hook', hook),
    notify: () => undefined,
    withdraw: () => undefined,
    dispose: async () => {
      disposed = true;
      await scope.dispose();
    },
  };
}
