import type { SessionContext } from '../../src/core/tool-contract.js';

/** A SessionContext for tests: collects notices and runs dispose hooks on `dispose()`. */
export interface FakeSession extends SessionContext {
  /** Notices received while alive and not withdrawn, in order. */
  readonly notices: string[];
  /** Number of `notify` calls, including ignored ones after disposal. */
  readonly notifyCalls: number;
  /** Marks the session disposed and awaits every hook (in registration order). */
  dispose(): Promise<void>;
}

export function fakeSession(id: string, options: { cwd?: string; jsonlPath?: string } = {}): FakeSession {
  const hooks: Array<() => void | Promise<void>> = [];
  const queued: Array<{ text: string; key?: string }> = [];
  let disposed = false;
  let notifyCalls = 0;
  let disposing: Promise<void> | undefined;
  return {
    id,
    ...options,
    get notices() {
      return queued.map((notice) => notice.text);
    },
    get disposed() {
      return disposed;
    },
    get notifyCalls() {
      return notifyCalls;
    },
    onDispose(hook) {
      if (disposed) void Promise.resolve().then(hook);
      else hooks.push(hook);
    },
    notify(notice, key) {
      notifyCalls++;
      if (!disposed) queued.push({ text: notice, key });
    },
    withdraw(key) {
      for (let i = queued.length - 1; i >= 0; i--) if (queued[i]!.key === key) queued.splice(i, 1);
    },
    dispose() {
      disposing ??= (async () => {
        disposed = true;
        for (const hook of hooks.splice(0)) await hook();
      })();
      return disposing;
    },
  };
}
