// Each session's container lives in its scope: found by the session object
// (another session, even one with the same id, gets a container of its own),
// removed when the session closes (also one still being created), and still
// reached by the provider's own disposal. A fake engine: only the bookkeeping
// is under test here (session-release-race.test.ts runs the real engine).
import { ScopeKey, scopeOf } from '../../../../src/core/session-scope.js';
import { resolveContainerConfig } from '../../../../src/providers/exec/engine/container-config.js';
import type { ContainerEngine, ContainerHandle, ContainerSpec, ContainerState } from '../../../../src/providers/exec/engine/container-engine.js';
import { NO_SESSION, SessionContainers } from '../../../../src/providers/exec/engine/session-containers.js';
import { runAsToolCall } from '../../../../src/core/tool-call-context.js';
import { fakeSession } from '../../../support/fake-session.js';
import { scopedSession } from '../../../support/scoped-session.js';

/** Records creations and removals; `hold()` keeps the next creations pending until `release()`. */
class FakeEngine implements Partial<ContainerEngine> {
  readonly endpoint = 'fake://engine';
  readonly created: string[] = [];
  readonly removed: string[] = [];
  onRemove: (id: string) => void = () => undefined;
  private holding = false;
  private held: Array<() => void> = [];
  private reached?: () => void;
  private count = 0;

  hold(): Promise<void> {
    this.holding = true;
    return new Promise<void>((resolve) => (this.reached = resolve));
  }

  release(): void {
    this.holding = false;
    for (const resolve of this.held.splice(0)) resolve();
  }

  async create(_spec: ContainerSpec): Promise<ContainerHandle> {
    this.reached?.();
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    const id = `c-${++this.count}`;
    this.created.push(id);
    return { id, stopped: new Promise<ContainerState>(() => undefined) };
  }

  async remove(id: string): Promise<void> {
    this.removed.push(id);
    this.onRemove(id);
  }

  async createNetwork(): Promise<string> {
    return `n-${++this.count}`;
  }

  async removeNetwork(): Promise<void> {}

  async state(): Promise<ContainerState> {
    return { running: true };
  }
}

function provider(engine: FakeEngine): SessionContainers {
  return new SessionContainers(engine as unknown as ContainerEngine, resolveContainerConfig({ image: 'fake:latest', network: 'none' }), {
    workspaceReadOnly: false,
    maxRetainedSpillBytes: 1 << 20,
    keepSpills: false,
  });
}

describe('SessionContainers keeps each session’s container in its scope', () => {
  it('a session with the same id as another gets its own container, and closing one removes only its own', async () => {
    const engine = new FakeEngine();
    const containers = provider(engine);
    const [a, twin] = [fakeSession('same'), fakeSession('same')];
    const mine = await containers.acquire(a);
    const theirs = await containers.acquire(twin);
    expect(theirs.id).not.toBe(mine.id);
    expect((await containers.acquire(a)).id).toBe(mine.id);
    await twin.dispose();
    expect(engine.removed).toEqual([theirs.id]);
    expect(containers.size).toBe(1);
    await containers.dispose();
  });

  it('a session closed while its container is being created: the call is refused, the container removed, the close waited for it', async () => {
    const engine = new FakeEngine();
    const containers = provider(engine);
    const a = scopedSession('a');
    const reached = engine.hold();
    const acquiring = containers.acquire(a);
    acquiring.catch(() => undefined);
    await reached;
    // What the engine had removed when the session's close resolved.
    const closing = a.dispose().then(() => [...engine.removed]);
    engine.release();
    await expect(acquiring).rejects.toThrow('session a is disposed');
    expect(await closing).toEqual(engine.created);
    expect(engine.created).toHaveLength(1);
    await expect(containers.acquire(a)).rejects.toThrow('session a is disposed');
    await containers.dispose();
  });

  it('the scope removes the container newest first: after services made later, before older ones', async () => {
    const engine = new FakeEngine();
    const containers = provider(engine);
    const a = scopedSession('a');
    const order: string[] = [];
    engine.onRemove = () => order.push('container removed');
    scopeOf(a).get(new ScopeKey<true>('older service'), () => true, () => void order.push('older service'));
    await containers.acquire(a);
    scopeOf(a).get(new ScopeKey<true>('newer service'), () => true, () => void order.push('newer service'));
    await a.dispose();
    expect(order).toEqual(['newer service', 'container removed', 'older service']);
    await containers.dispose();
  });

  it('the provider’s disposal removes every open session’s container and the sessionless one, once', async () => {
    const engine = new FakeEngine();
    const containers = provider(engine);
    const sessions = [scopedSession('a'), scopedSession('b')];
    for (const session of sessions) await containers.acquire(session);
    // The sessionless container is a sessionless call's (`host.call`): outside every call a request without a session is refused.
    await expect(containers.acquire(undefined)).rejects.toThrow(NO_SESSION);
    await runAsToolCall({ signal: new AbortController().signal, callId: 'c1' }, () => containers.acquire(undefined));
    await containers.dispose();
    expect([...engine.removed].sort()).toEqual([...engine.created].sort());
    expect(engine.created).toHaveLength(3);
    await Promise.all(sessions.map((s) => s.dispose()));
    expect(engine.removed).toHaveLength(3);
  });

  it('release(id) removes the containers of the open sessions with that id; the session gets a fresh one next time', async () => {
    const engine = new FakeEngine();
    const containers = provider(engine);
    const [a, b] = [fakeSession('a'), fakeSession('b')];
    const [first, other] = [await containers.acquire(a), await containers.acquire(b)];
    await containers.release('a');
    expect(engine.removed).toEqual([first.id]);
    const second = await containers.acquire(a);
    expect(second.id).not.toBe(first.id);
    expect(a.notices).toEqual([]); // a release is not a restart
    expect((await containers.acquire(b)).id).toBe(other.id);
    await containers.dispose();
  });
});
