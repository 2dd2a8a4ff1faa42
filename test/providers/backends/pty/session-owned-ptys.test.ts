// A session's PTYs live in its scope: found by the session object (another
// session, even one with the same id, finds nothing), closed when it closes
// (also one still opening), and still reached by the service's own disposal.
import { ScopeKey, scopeOf } from '../../../../src/core/session-scope.js';
import { LocalTerminalService } from '../../../../src/providers/exec/terminal/local-terminal-service.js';
import type { PtySession, SendResult, TerminalBackend, TerminalOpenOptions } from '../../../../src/providers/exec/terminal/terminal-service.js';
import { fakeSession } from '../../../support/fake-session.js';
import { scopedSession } from '../../../support/scoped-session.js';

class FakePty implements PtySession {
  readonly pid = 0;
  alive = true;
  closes = 0;
  constructor(private readonly onClose: () => void = () => undefined) {}
  async send(command: string): Promise<SendResult> {
    return { output: command, lostPrefix: false, end: { kind: 'completed', exitCode: 0 } };
  }
  async close(): Promise<void> {
    this.closes++;
    this.alive = false;
    this.onClose();
  }
}

/** Opens PTYs at once, or (after `hold()`) when the test releases them. */
class FakeBackend implements TerminalBackend {
  readonly type = 'fake';
  readonly opened: FakePty[] = [];
  private held: Array<() => void> = [];
  private reached?: () => void;
  holding = false;
  onClose: () => void = () => undefined;

  /** Resolves when an open reaches this backend. */
  nextOpen(): Promise<void> {
    return new Promise<void>((resolve) => (this.reached = resolve));
  }

  async open(_options: TerminalOpenOptions): Promise<PtySession> {
    this.reached?.();
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    const pty = new FakePty(this.onClose);
    this.opened.push(pty);
    return pty;
  }

  releaseAll(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

describe('LocalTerminalService keeps each session’s PTYs in its scope', () => {
  it('another session with the same id finds none of them: the same text as an unknown id', async () => {
    const backend = new FakeBackend();
    const service = new LocalTerminalService([backend]);
    const [a, twin] = [fakeSession('same'), fakeSession('same')];
    const id = await service.open(a, 'fake', { cwd: '/' });
    expect(service.isAlive(twin, id)).toBe(false);
    await expect(service.send(twin, id, 'x', { timeoutMs: 1000 })).rejects.toThrow(`unknown terminal session "${id}"`);
    await expect(service.close(twin, id)).rejects.toThrow(`unknown terminal session "${id}"`);
    await twin.dispose();
    expect(backend.opened[0]!.closes).toBe(0);
    expect(service.isAlive(a, id)).toBe(true);
    await service.dispose();
  });

  it('a session closed while its PTY is opening: the open is refused, the PTY closed, and the close waited for it', async () => {
    const backend = new FakeBackend();
    const service = new LocalTerminalService([backend]);
    const a = scopedSession('a');
    backend.holding = true;
    const reached = backend.nextOpen();
    const opening = service.open(a, 'fake', { cwd: '/' });
    opening.catch(() => undefined);
    await reached;
    // What the PTY had seen when the session's close resolved: the close waits for the open in flight.
    const closing = a.dispose().then(() => backend.opened.map((pty) => pty.closes));
    backend.releaseAll();
    await expect(opening).rejects.toThrow('session a is disposed');
    expect(await closing).toEqual([1]);
    await service.dispose();
  });

  it('the scope closes the session’s services newest first: PTYs opened after another service go before it', async () => {
    const backend = new FakeBackend();
    const service = new LocalTerminalService([backend]);
    const a = scopedSession('a');
    const order: string[] = [];
    backend.onClose = () => order.push('pty closed');
    scopeOf(a).get(new ScopeKey<true>('older service'), () => true, () => void order.push('older service'));
    await service.open(a, 'fake', { cwd: '/' });
    scopeOf(a).get(new ScopeKey<true>('newer service'), () => true, () => void order.push('newer service'));
    await a.dispose();
    expect(order).toEqual(['newer service', 'pty closed', 'older service']);
    await service.dispose();
  });

  it('the service’s disposal closes every open session’s PTYs, and their later close finds nothing left', async () => {
    const backend = new FakeBackend();
    const service = new LocalTerminalService([backend]);
    const sessions = [scopedSession('a'), scopedSession('b')];
    const ids = [await service.open(sessions[0]!, 'fake', { cwd: '/' }), await service.open(sessions[1]!, 'fake', { cwd: '/' })];
    await service.dispose();
    expect(backend.opened.map((pty) => pty.closes)).toEqual([1, 1]);
    expect(service.isAlive(sessions[0]!, ids[0]!)).toBe(false);
    await Promise.all(sessions.map((s) => s.dispose()));
    expect(backend.opened.map((pty) => pty.closes)).toEqual([1, 1]);
  });

  it('disposeOwner(id) closes the PTYs of the open sessions with that id and no other', async () => {
    const backend = new FakeBackend();
    const service = new LocalTerminalService([backend]);
    const [a, b] = [fakeSession('a'), fakeSession('b')];
    const [idA, idB] = [await service.open(a, 'fake', { cwd: '/' }), await service.open(b, 'fake', { cwd: '/' })];
    await service.disposeOwner('a');
    expect(backend.opened.map((pty) => pty.closes)).toEqual([1, 0]);
    expect([service.isAlive(a, idA), service.isAlive(b, idB)]).toEqual([false, true]);
    await service.dispose();
  });
});
