import { DisposableScope, ScopeKey, scopeOf } from '../../src/core/session-scope.js';
import { createHost, decorate, Logger, localEnvironment } from '../../src/index.js';
import { fakeSession } from '../support/fake-session.js';

const A = new ScopeKey<{ name: string }>('service a');
const B = new ScopeKey<{ name: string }>('service b');

describe('DisposableScope', () => {
  it('holds lasting state only once a service whose key outlives a call is made, and none after disposal', async () => {
    const scope = new DisposableScope(() => undefined);
    scope.get(A, () => ({ name: 'a' }));
    scope.add('hook', () => undefined);
    expect(scope.holdsLastingState).toBe(false);
    scope.get(new ScopeKey<true>('the shell', { outlivesCall: true }), () => true);
    expect(scope.holdsLastingState).toBe(true);
    await scope.dispose();
    expect(scope.holdsLastingState).toBe(false);
  });

  it('makes a service once and disposes services newest first, one at a time', async () => {
    const order: string[] = [];
    const scope = new DisposableScope(() => undefined);
    const slow = (name: string) => async () => {
      order.push(`${name} start`);
      await new Promise<void>((resolve) => setImmediate(resolve));
      order.push(`${name} end`);
    };
    const a = scope.get(A, () => ({ name: 'a' }), slow('a'));
    expect(scope.get(A, () => ({ name: 'other' }))).toBe(a);
    scope.add('hook', slow('hook'));
    scope.get(B, () => ({ name: 'b' }), slow('b'));
    await scope.dispose();
    expect(order).toEqual(['b start', 'b end', 'hook start', 'hook end', 'a start', 'a end']);
    expect(scope.peek(A)).toBeUndefined();
    expect(() => scope.get(A, () => ({ name: 'late' }))).toThrow('the session is disposed: no service a for it');
  });

  it('reports a disposer that throws and one that rejects, and still runs the rest', async () => {
    const ran: string[] = [];
    const failures: string[] = [];
    const scope = new DisposableScope((name, error) => failures.push(`${name}: ${(error as Error).message}`));
    scope.add('first', () => void ran.push('first'));
    scope.add('thrower', () => {
      throw new Error('ENOTEMPTY: directory not empty');
    });
    scope.add('rejecter', () => Promise.reject(new Error('gone')));
    scope.add('last', () => void ran.push('last'));
    await expect(scope.dispose()).resolves.toBeUndefined();
    expect(ran).toEqual(['last', 'first']);
    expect(failures).toEqual(['rejecter: gone', 'thrower: ENOTEMPTY: directory not empty']);
  });

  it('gives a hand-made session a scope disposed through its onDispose', async () => {
    const session = fakeSession('hand-made');
    const disposed: string[] = [];
    scopeOf(session).get(A, () => ({ name: 'a' }), (a) => void disposed.push(a.name));
    expect(scopeOf(session)).toBe(scopeOf(session));
    await session.dispose();
    expect(disposed).toEqual(['a']);
  });
});

describe('a host session scope', () => {
  it('logs a failing disposer, runs the others in reverse order, and the disposal still resolves', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (line) => void warnings.push(line), error: () => undefined };
    const host = await createHost(...localEnvironment({ workspace: '/tmp' }), decorate(Logger, () => logger));
    const session = host.openSession({ id: 'scoped', cwd: '/tmp' });
    const order: string[] = [];
    session.onDispose(() => void order.push('opened first'));
    session.scope.get(A, () => ({ name: 'a' }), () => Promise.reject(new Error('cannot remove /tmp/x')));
    session.onDispose(() => {
      order.push('opened last');
      throw new Error('boom');
    });
    await expect(session.dispose()).resolves.toBeUndefined();
    expect(order).toEqual(['opened last', 'opened first']);
    expect(warnings).toEqual([
      'session scoped: disposing an onDispose hook failed: boom',
      'session scoped: disposing service a failed: cannot remove /tmp/x',
    ]);
    await host.dispose();
  });
});
