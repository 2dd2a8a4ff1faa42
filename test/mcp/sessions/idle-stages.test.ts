// The idle stages with a fake clock: what keeps a session (a request, an
// event stream; not a task nobody reads), the session handed to `release`
// after sessionIdleMs or its lifetime, and the activity the persistent shell's idle clock reads
// (the shell's own stage is decided there: shell-idle-close.ts).
import { createHost, localEnvironment, type DshHost } from '../../../src/index.js';
import type { HostSession } from '../../../src/container/host-session.js';
import { IdleStages, SessionActivity } from '../../../src/mcp/sessions/idle-stages.js';
import { sessionIdleFor } from '../../../src/core/session-activity.js';

let host: DshHost;
beforeAll(async () => {
  host = await createHost(...localEnvironment({ workspace: process.cwd() }));
});
afterAll(() => host.dispose());

/** A table of one session, a fake clock, and a switch for "a task runs". */
function setup(settings: { sessionIdleMs: number; lifetimeMs?: number }) {
  const clock = { t: 1000, now() { return this.t; } };
  const session: HostSession = host.openSession();
  let taskRuns = false;
  const activity = new SessionActivity(session, clock, () => taskRuns);
  const released: Array<[number, string]> = [];
  const stages = new IdleStages(settings, clock, () => (released.length ? [] : [activity]), (_, cause) => void released.push([clock.t, cause]));
  const at = (t: number) => {
    clock.t = t;
    stages.sweep();
  };
  return { session, activity, released, at, setTask: (runs: boolean) => (taskRuns = runs) };
}

test('the session goes after sessionIdleMs; 0 keeps it', async () => {
  const { session, released, at } = setup({ sessionIdleMs: 10_000 });
  at(10_999);
  expect(released).toEqual([]);
  at(11_000);
  expect(released).toEqual([[11_000, 'idle']]);
  await session.dispose();
  const never = setup({ sessionIdleMs: 0 });
  never.at(10_000_000);
  expect(never.released).toEqual([]);
  await never.session.dispose();
});

test('a request and an open event stream keep the session; a running task does not (issue 34.4): the clock starts when the last request or stream ends', async () => {
  const { activity, released, at, setTask, session } = setup({ sessionIdleMs: 3000 });
  const endRequest = activity.begin();
  const endStream = activity.begin(true);
  at(50_000);
  endRequest();
  at(100_000);
  expect(released).toEqual([]);
  endStream();
  setTask(true);
  at(102_999);
  expect(released).toEqual([]);
  // Nobody reads or waits on the task: the client is gone, and the session ends with its task.
  at(103_000);
  expect(released).toEqual([[103_000, 'idle']]);
  // The persistent shell's own idle clock still counts the running task as activity.
  expect(activity.idleFor()).toBeUndefined();
  await session.dispose();
});

test('a request reading a running task keeps the session; its end restarts the clock', async () => {
  const { activity, released, at, setTask, session } = setup({ sessionIdleMs: 3000 });
  setTask(true);
  at(2000);
  const endRead = activity.begin();
  at(60_000);
  expect(released).toEqual([]);
  endRead();
  at(62_999);
  expect(released).toEqual([]);
  at(63_000);
  expect(released).toEqual([[63_000, 'idle']]);
  await session.dispose();
});

test('lifetimeMs ends a session busy or not, with its own cause; endsAt says when', async () => {
  const { activity, released, at, session } = setup({ sessionIdleMs: 0, lifetimeMs: 10_000 });
  const endStream = activity.begin(true);
  expect(activity.endsAt({ sessionIdleMs: 0, lifetimeMs: 10_000 })).toBe(11_000);
  at(10_999);
  expect(released).toEqual([]);
  at(11_000);
  expect(released).toEqual([[11_000, 'lifetime']]);
  endStream();
  expect(activity.endsAt({ sessionIdleMs: 0 })).toBeUndefined();
  await session.dispose();
});

test('the shell\'s idle clock reads the same activity: busy while a request runs, then idle for as long as the session', async () => {
  const { activity, session, at } = setup({ sessionIdleMs: 0 });
  const end = activity.begin();
  at(5000);
  expect(sessionIdleFor(session)).toBeUndefined();
  end();
  at(7500);
  expect(sessionIdleFor(session)).toBe(2500);
  await session.dispose();
});

test('a session no table watches is idle for the shell\'s clock as far as its host knows (only its shell\'s own calls count)', async () => {
  const session = host.openSession();
  expect(sessionIdleFor(session)).toBe(Infinity);
  await session.dispose();
});
