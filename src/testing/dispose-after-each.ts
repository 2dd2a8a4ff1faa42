/** Anything with an async (or sync) `dispose()`: a host, a session, an executor. */
export interface Disposable {
  dispose(): Promise<void> | void;
}

/**
 * Registers one `afterEach` hook (pass your framework's: jest, vitest and
 * mocha all fit) that disposes everything the test handed to the returned
 * `track`, newest first (sessions before the host that opened them), and
 * fails the test with the first error after trying them all. A host nobody
 * disposes keeps its shells (and with them the test process) alive.
 *
 *     const track = disposeAfterEach(afterEach);
 *     const host = track(await createHost(...localEnvironment()));
 */
export function disposeAfterEach(afterEach: (hook: () => Promise<void>) => void): <T extends Disposable>(value: T) => T {
  const tracked: Disposable[] = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const value of tracked.splice(0).reverse()) {
      try {
        await value.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  });
  return (value) => {
    tracked.push(value);
    return value;
  };
}
