// The idle stages with a fake clock: what keeps a session busy (a request,
// an event stream, a running task), the shell closed first (announced in the
// session's next notices), then the session handed to `release`.
import { ScopeKey } from '../../src/core/session-scope.js';
import { createHost, localEnvironment, type DshHost } from '../../src/index.js';
import type { HostSession } from '../../src/container/host-session.js';
import { IdleStages, SessionActivity, shellReleasedNotice } from '../../src/mcp/idle-stages.js';

const SHELL = new ScopeKey<true>('the test shell', { outlivesCall: true, holdsProcess: true });

let host: DshHost;
beforeAll(async () => {
  host = await createHost(...localEnvironment({ workspace: process.cwd() }));
});
afterAll(() => host.dispose());

/** A table of one session with a shell, a fake clock, and a switch for "a task runs". */
function setup(settings: { sessionIdleMs: number; shellIdleMs: number }) {
  const clock = { t: 1000, now() { return this.t; } };
  const session: HostSession = host.openSession();
  const shellClosed: number[] = [];
  session.scope.get(SHELL, () => true, () => void shellClosed.push(clock.t));
  let taskRuns = false;
  const activity = new SessionActivity(session, clock, () => taskRuns);
  const released: number[] = [];
  const stages = new IdleStages(settings, clock, () => (released.length ? [] : [activity]), () => void released.push(clock.t));
  const at = async (t: number) => {
    clock.t = t;
    await stages.sweep();
  };
  return { session, activity, shellClosed, released, at, setTask: (runs: boolean) => (taskRuns = runs) };
}

test('the shell goes after shellIdleMs (announced once), the session after sessionIdleMs', async () => {
  const { session, shellClosed, released, at } = setup({ sessionIdleMs: 10_000, shellIdleMs: 4000 });
  await at(4999);
  expect(shellClosed).toEqual([]);
  await at(5000);
  expect(shellClosed).toEqual([5000]);
  await at(8000);
  expect(session.takeNotices()).toEqual([shellReleasedNotice(4000)]);
  expect(shellReleasedNotice(4000)).toBe(
    '[session idle: its shell was closed after 4 s without a request (persistent.idleCloseMs); cwd, variables and jobs of that shell are gone, the next command starts a fresh shell in the workspace; background tasks and their output are kept]',
  );
  expect(released).toEqual([]);
  await at(11_000);
  expect(released).toEqual([11_000]);
  await session.dispose();
});

test('a session whose only process was one the model never used (a pre-started shell) loses it without a notice', async () => {
  const clock = { t: 1000, now() { return this.t; } };
  const session: HostSession = host.openSession();
  const closed: number[] = [];
  session.scope.get(new ScopeKey<true>('a pre-started shell', { holdsProcess: true }), () => true, () => void closed.push(clock.t));
  const activity = new SessionActivity(session, clock, () => false);
  const stages = new IdleStages({ sessionIdleMs: 0, shellIdleMs: 4000 }, clock, () => [activity], () => undefined);
  clock.t = 5000;
  await stages.sweep();
  expect(closed).toEqual([5000]);
  expect(session.takeNotices()).toEqual([]);
  await session.dispose();
});

test('a request, an open event stream and a running task each keep the session; the clock starts when the last ends', async () => {
  const { activity, shellClosed, released, at, setTask, session } = setup({ sessionIdleMs: 3000, shellIdleMs: 0 });
  const endRequest = activity.begin();
  const endStream = activity.begin(true);
  await at(50_000);
  endRequest();
  await at(100_000);
  expect(released).toEqual([]);
  endStream();
  setTask(true);
  await at(200_000);
  expect(released).toEqual([]);
  setTask(false);
  await at(202_999);
  expect(released).toEqual([]);
  await at(203_000);
  expect(released).toEqual([203_000]);
  expect(shellClosed).toEqual([]);
  await session.dispose();
});

test('a shell idle time not shorter than the session\'s: no separate shell stage, the session goes with its shell', async () => {
  const { shellClosed, released, at, session } = setup({ sessionIdleMs: 3000, shellIdleMs: 3000 });
  await at(4000);
  expect(released).toEqual([4000]);
  expect(shellClosed).toEqual([]);
  expect(session.takeNotices()).toEqual([]);
  await session.dispose();
});

test('a request after the shell stage starts the clock again: the next shell is closed again only after another idle stretch', async () => {
  const { activity, session, shellClosed, at } = setup({ sessionIdleMs: 0, shellIdleMs: 1000 });
  await at(2000);
  expect(shellClosed).toEqual([2000]);
  activity.begin()();
  session.scope.get(SHELL, () => true, () => void shellClosed.push(-1));
  await at(2500);
  expect(shellClosed).toEqual([2000]);
  await at(3000);
  expect(shellClosed).toEqual([2000, -1]);
  await session.dispose();
});

test('a session with no shell has nothing to announce', async () => {
  const clock = { now: () => 10_000 };
  const session = host.openSession();
  const activity = new SessionActivity(session, { now: () => 0 }, () => false);
  await new IdleStages({ sessionIdleMs: 0, shellIdleMs: 1000 }, clock, () => [activity], () => undefined).sweep();
  expect(session.takeNotices()).toEqual([]);
  await session.dispose();
});
