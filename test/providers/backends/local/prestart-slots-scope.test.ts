// Each session's pre-started shell lives in its scope: found by the session
// object (another session, even one with the same id, never takes it),
// discarded when the session closes (also one waiting for a burst to end),
// and still reached by the slots' own disposal.
import { ScopeKey, scopeOf } from '../../../../src/core/session-scope.js';
import { PrestartSlots } from '../../../../src/providers/backends/local/prestart-slots.js';
import type { PrestartedShell } from '../../../../src/providers/exec/shell/prestarted-shell.js';
import { fakeSession } from '../../../support/fake-session.js';
import { scopedSession } from '../../../support/scoped-session.js';

let nextPid = 1000;

/** Stands in for a started shell: usable until discarded. */
class FakeShell {
  readonly pid = nextPid++;
  discarded = 0;
  constructor(private readonly onDiscard: () => void = () => undefined) {}
  get usable(): boolean {
    return this.discarded === 0;
  }
  discard(): void {
    this.discarded++;
    this.onDiscard();
  }
}

function starter(made: FakeShell[], onDiscard?: () => void): () => PrestartedShell {
  return () => {
    const shell = new FakeShell(onDiscard);
    made.push(shell);
    return shell as unknown as PrestartedShell;
  };
}

/** The slots' deferred starts run on setImmediate after a burst ends. */
const afterDeferredStarts = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PrestartSlots keeps each session’s shell in its scope', () => {
  it('another session with the same id never takes it; its owner does', () => {
    const slots = new PrestartSlots(60_000);
    const [a, twin] = [fakeSession('same'), fakeSession('same')];
    const made: FakeShell[] = [];
    slots.fill(a, 'k', starter(made));
    expect(slots.take(twin, 'k')).toBeUndefined();
    expect(made[0]!.discarded).toBe(0);
    expect(slots.take(a, 'k')).toBe(made[0]);
    slots.dispose();
  });

  it('a call running in one session holds back only that session’s start', () => {
    const slots = new PrestartSlots(60_000);
    const [a, twin] = [fakeSession('same'), fakeSession('same')];
    const made: FakeShell[] = [];
    slots.begin(a);
    slots.fill(a, 'k', starter(made));
    slots.fill(twin, 'k', starter(made));
    expect(made).toHaveLength(1);
    expect(slots.take(twin, 'k')).toBe(made[0]);
    slots.end(a);
    slots.dispose();
  });

  it('a session closed while its start waits for a burst: nothing is started for it', async () => {
    const slots = new PrestartSlots(60_000);
    const [a, busy] = [scopedSession('a'), fakeSession('busy')];
    const made: FakeShell[] = [];
    slots.begin(busy);
    slots.begin(busy);
    slots.fill(a, 'k', starter(made)); // two calls run: the start waits
    expect(made).toHaveLength(0);
    await a.dispose();
    slots.end(busy);
    slots.end(busy);
    await afterDeferredStarts();
    expect(made).toHaveLength(0);
    expect(slots.pids).toEqual([]);
    slots.dispose();
  });

  it('the scope discards the shell newest first: after services made later, before older ones', async () => {
    const slots = new PrestartSlots(60_000);
    const a = scopedSession('a');
    const order: string[] = [];
    scopeOf(a).get(new ScopeKey<true>('older service'), () => true, () => void order.push('older service'));
    const made: FakeShell[] = [];
    slots.fill(a, 'k', starter(made, () => order.push('shell discarded')));
    scopeOf(a).get(new ScopeKey<true>('newer service'), () => true, () => void order.push('newer service'));
    await a.dispose();
    expect(order).toEqual(['newer service', 'shell discarded', 'older service']);
    expect(slots.take(a, 'k')).toBeUndefined();
    slots.dispose();
  });

  it('the slots’ disposal discards every session’s shell and the sessionless one', async () => {
    const slots = new PrestartSlots(60_000);
    const sessions = [scopedSession('a'), scopedSession('b')];
    const made: FakeShell[] = [];
    for (const session of [...sessions, undefined]) slots.fill(session, 'k', starter(made));
    expect(slots.pids).toEqual(made.map((shell) => shell.pid));
    slots.dispose();
    expect(made.map((shell) => shell.discarded)).toEqual([1, 1, 1]);
    expect(slots.pids).toEqual([]);
    await Promise.all(sessions.map((s) => s.dispose()));
    expect(made.map((shell) => shell.discarded)).toEqual([1, 1, 1]);
  });
});
