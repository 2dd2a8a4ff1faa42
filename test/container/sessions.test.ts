import { injectable, preDestroy } from 'inversify';
import type { ServiceIdentifier } from 'inversify';
import { DshHost } from '../../src/container/dsh-host.js';
import { PluginModule } from '../../src/core/plugin-module.js';
import { echoToolModule, recorderModule } from '../support/echo-tool.js';

const Disposable: ServiceIdentifier<TrackedProvider> = Symbol.for('test.Disposable');

@injectable()
class TrackedProvider {
  static disposed = 0;
  @preDestroy()
  async dispose(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    TrackedProvider.disposed += 1;
  }
}

describe('sessions', () => {
  let host: DshHost;
  beforeEach(async () => {
    host = new DshHost();
    await host.load(echoToolModule(), recorderModule());
  });
  afterEach(() => host.dispose());

  it('runs calls as the session and resolves its cwd to an absolute path', async () => {
    const session = host.openSession({ id: 's1', cwd: 'relative/dir' });
    expect(session.cwd).toBe(`${process.cwd()}/relative/dir`);
    const result = await session.call('echo', { text: 'x' });
    expect(result.value).toEqual({ session: 's1' });
  });

  it('refuses a second open session with the same id', () => {
    host.openSession({ id: 'dup' });
    expect(() => host.openSession({ id: 'dup' })).toThrow('session "dup" is already open');
  });

  it('awaits cleanup hooks on dispose, in reverse order, and survives a failing hook', async () => {
    const session = host.openSession();
    const order: string[] = [];
    session.onDispose(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push('first');
    });
    session.onDispose(() => {
      throw new Error('hook failed');
    });
    session.onDispose(() => void order.push('last'));
    await session.dispose();
    expect(order).toEqual(['last', 'first']);
    expect(session.disposed).toBe(true);
  });

  it('queues notices until taken and drops them once disposed', async () => {
    const session = host.openSession();
    const heard: string[] = [];
    session.onNotice((notice) => heard.push(notice));
    session.notify('one');
    session.notify('two');
    expect(session.takeNotices()).toEqual(['one', 'two']);
    expect(session.takeNotices()).toEqual([]);
    await session.dispose();
    session.notify('late');
    expect(session.takeNotices()).toEqual([]);
    expect(heard).toEqual(['one', 'two']);
  });

  it('withdraws queued notices by key, leaving the others', () => {
    const session = host.openSession();
    session.notify('task one finished', 'task:1');
    session.notify('plain notice');
    session.notify('task two finished', 'task:2');
    session.withdraw('task:1');
    expect(session.takeNotices()).toEqual(['plain notice', 'task two finished']);
  });

  it('answers a call on a disposed session with an error result', async () => {
    const session = host.openSession({ id: 'gone' });
    await session.dispose();
    const result = await session.call('echo', { text: 'x' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Error: session "gone" is disposed' }], isError: true });
  });

  it('disposes every session and every resolved provider with the host', async () => {
    await host.load(new PluginModule('tracked', ({ bind }) => void bind(Disposable).to(TrackedProvider).inSingletonScope()));
    host.get(Disposable);
    const session = host.openSession();
    let hookRan = false;
    session.onDispose(() => void (hookRan = true));
    const before = TrackedProvider.disposed;
    await host.dispose();
    expect(hookRan).toBe(true);
    expect(session.disposed).toBe(true);
    expect(TrackedProvider.disposed).toBe(before + 1);
    expect(() => host.openSession()).toThrow('the host is disposed');
    expect(() => host.prompt()).toThrow('cannot call prompt(): the host is disposed');
  });
});
