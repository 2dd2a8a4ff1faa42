// Shared sessions' containers (docs/shared-sessions.md#sandboxes) on the real engine: two hosts in one
// process stand for two replicas over the same engine; a session with the same id on both is served
// by one container that outlives either, each replica through a channel of its own.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, DockerContainerEngine, LABELS, reapDeadInstances, type DshHost, type HostSession } from '../../../../src/index.js';
import { SessionContainersToken, type SessionContainers } from '../../../../src/providers/exec/engine/session-containers.js';
import { listSharedContainers, SHARED_POOL_REFUSED, SHARED_SESSION_DIR_PREFIX } from '../../../../src/providers/exec/engine/shared-containers.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { containerProcesses } from '../../../support/container-kit.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const engine = new DockerContainerEngine();

describeWithEngine(`shared sessions' containers${NEEDS_ENGINE}`, () => {
  let root: string;
  let a: DshHost;
  let b: DshHost;
  const unique = Date.now().toString(36);
  const replica = () => createHost(...containerEnvironment({ workspace: root, sharedSessions: true, container: { image: TEST_IMAGE, channel: true }, executor: { graceMs: 300 } }));
  const containersOf = (host: DshHost): SessionContainers => host.get(SessionContainersToken);
  const run = async (session: HostSession, command: string) => text(await session.call('bash', { command, description: 'Run it' }));
  /** The channel directory a call's stdout is in: `ch-<first 8 of the replica's instance id>`. */
  const channelOf = (host: DshHost) => `ch-${containersOf(host).instanceId.slice(0, 8)}`;
  const whereOut = 'readlink /proc/$$/fd/1 | sed "s|.*/\\(ch[^/]*\\)/.*|\\1|"';
  const holders = async (sessionId: string) => (await containerProcesses(sessionId)).filter((line) => / bash -c D=/.test(line)).length;

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ss-ws-')));
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    await Promise.all([a.dispose(), b.dispose()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('one container serves the session on both replicas, each through its own channel, and outlives the one that let go', async () => {
    const id = `ss-both-${unique}`;
    const onA = a.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    try {
      expect(await containersOf(a).channelReady(onA)).toBe(true);
      expect(await run(onA, `echo x > /tmp/mark; ${whereOut}`)).toBe(channelOf(a));
      expect(await containersOf(b).channelReady(onB)).toBe(true);
      expect(await run(onB, `cat /tmp/mark; ${whereOut}`)).toBe(`x\n${channelOf(b)}`);
      const heldByB = await containersOf(b).acquire(onB);
      const [sandbox, ...others] = await listSharedContainers(engine, id);
      expect(others).toEqual([]);
      expect(sandbox!.dir.startsWith(path.join(os.tmpdir(), SHARED_SESSION_DIR_PREFIX))).toBe(true);
      expect(statSync(sandbox!.dir).mode & 0o777).toBe(0o700);
      expect(await holders(id)).toBe(2);

      // A lets go of its session (its client went to B): its holder reads the end of its ctl and exits.
      await onA.dispose();
      expect((await engine.state(sandbox!.id)).running).toBe(true);
      expect(existsSync(sandbox!.dir)).toBe(true);
      for (let i = 0; i < 50 && (await holders(id)) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await holders(id)).toBe(1);
      expect(await run(onB, `cat /tmp/mark; ${whereOut}`)).toBe(`x\n${channelOf(b)}`);

      // Ended from a replica that holds nothing of it: container, directory and B's hold all go.
      await containersOf(a).end(id);
      expect(await listSharedContainers(engine, id)).toEqual([]);
      expect(existsSync(sandbox!.dir)).toBe(false);
      expect(heldByB.id).toBe(sandbox!.id);
      // B watches the container it adopted: it learns the end without asking.
      expect((await heldByB.ended).running).toBe(false);
    } finally {
      await Promise.all([onA.dispose(), onB.dispose()]);
      await containersOf(b).end(id);
    }
  }, 60_000);

  it('a replica that goes away (disposed without end) leaves the container to the others', async () => {
    const id = `ss-gone-${unique}`;
    const gone = await replica();
    const onGone = gone.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    try {
      expect(await run(onGone, 'echo kept > /tmp/mark; echo done')).toBe('done');
      const [sandbox] = await listSharedContainers(engine, id);
      await gone.dispose();
      expect((await engine.state(sandbox!.id)).running).toBe(true);
      expect(await containersOf(b).channelReady(onB)).toBe(true);
      expect(await run(onB, `cat /tmp/mark; ${whereOut}`)).toBe(`kept\n${channelOf(b)}`);
      expect((await listSharedContainers(engine, id)).map((found) => found.id)).toEqual([sandbox!.id]);
      await containersOf(b).end(id);
      expect(await listSharedContainers(engine, id)).toEqual([]);
      expect(existsSync(sandbox!.dir)).toBe(false);
    } finally {
      await onB.dispose();
      await containersOf(b).end(id);
    }
  }, 60_000);

  it('two replicas starting the same session at once keep one container', async () => {
    const id = `ss-race-${unique}`;
    const onA = a.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    try {
      const [fromA, fromB] = await Promise.all([containersOf(a).acquire(onA), containersOf(b).acquire(onB)]);
      expect(fromA.id).toBe(fromB.id);
      expect((await listSharedContainers(engine, id)).map((found) => found.id)).toEqual([fromA.id]);
    } finally {
      await Promise.all([onA.dispose(), onB.dispose()]);
      await containersOf(a).end(id);
    }
  }, 60_000);

  it('a container that stopped is replaced once, with the notice, and the other replica adopts the replacement', async () => {
    const id = `ss-stop-${unique}`;
    const onA = a.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    try {
      expect(await run(onA, 'echo one')).toBe('one');
      expect(await run(onB, 'echo two')).toBe('two');
      const [first] = await listSharedContainers(engine, id);
      await engine.remove(first!.id);
      expect(await run(onB, 'echo again > /tmp/mark; echo ran')).toBe('ran');
      expect(onB.takeNotices()).toEqual([expect.stringMatching(/^\[container restarted: the previous one stopped \(.+\)\]$/)]);
      expect(await run(onA, 'cat /tmp/mark')).toBe('again');
      const now = await listSharedContainers(engine, id);
      expect(now).toHaveLength(1);
      expect(now[0]!.id).not.toBe(first!.id);
      expect(existsSync(first!.dir)).toBe(false);
    } finally {
      await Promise.all([onA.dispose(), onB.dispose()]);
      await containersOf(a).end(id);
    }
  }, 60_000);

  it('sweepOrphans removes a container whose session has no record past the grace, and keeps the young and the live', async () => {
    const dead = `ss-sweep-dead-${unique}`;
    const live = `ss-sweep-live-${unique}`;
    const sessions = [a.openSession({ id: dead, cwd: root }), a.openSession({ id: live, cwd: root })];
    try {
      await Promise.all(sessions.map((session) => run(session, 'true')));
      // Every other shared session on this engine (another suite's) counts as live: only ours is at stake.
      const others = (await listSharedContainers(engine)).map((found) => found.sessionId).filter((sessionId) => sessionId !== dead);
      expect(await containersOf(b).sweepOrphans(new Set(others), 60_000)).toBe(0);
      expect(await listSharedContainers(engine, dead)).toHaveLength(1);
      const [doomed] = await listSharedContainers(engine, dead);
      expect(await containersOf(b).sweepOrphans(new Set(others), 0)).toBe(1);
      expect(await listSharedContainers(engine, dead)).toEqual([]);
      expect(existsSync(doomed!.dir)).toBe(false);
      expect(await listSharedContainers(engine, live)).toHaveLength(1);
    } finally {
      await Promise.all(sessions.map((session) => session.dispose()));
      await Promise.all([containersOf(a).end(dead), containersOf(a).end(live)]);
    }
  }, 60_000);

  it('sweepOrphans removes a session directory no container names once it is 10 minutes old, and keeps a young one', async () => {
    const stale = mkdtempSync(path.join(os.tmpdir(), SHARED_SESSION_DIR_PREFIX));
    const young = mkdtempSync(path.join(os.tmpdir(), SHARED_SESSION_DIR_PREFIX));
    try {
      // Left by a container removed outside any server, eleven minutes ago.
      const then = new Date(Date.now() - 11 * 60_000);
      utimesSync(stale, then, then);
      // A grace no container of another suite is past: only directories are at stake.
      await containersOf(b).sweepOrphans(new Set(), 5 * 60_000);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(young)).toBe(true);
    } finally {
      rmSync(stale, { recursive: true, force: true });
      rmSync(young, { recursive: true, force: true });
    }
  }, 60_000);

  it("the dead-server reaper leaves a shared container and its directory alone, whatever pid made it", async () => {
    const exited = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => exited.once('exit', () => resolve(exited.pid!)));
    const dir = mkdtempSync(path.join(os.tmpdir(), SHARED_SESSION_DIR_PREFIX));
    const sessionId = `ss-reap-${unique}`;
    const labels = {
      [LABELS.managed]: '1',
      [LABELS.session]: sessionId,
      [LABELS.hostname]: os.hostname(),
      [LABELS.pid]: String(deadPid),
      [LABELS.shared]: '1',
      [LABELS.dir]: dir,
      [LABELS.created]: String(Date.now()),
    };
    const { id } = await engine.create({
      image: TEST_IMAGE,
      name: `dsh-ss-reap-${unique}`,
      labels,
      env: {},
      mounts: [],
      network: 'none',
      readOnlyRootfs: false,
      capabilities: [],
      noNewPrivileges: true,
      detached: true,
    });
    try {
      await reapDeadInstances(engine);
      expect((await engine.state(id)).running).toBe(true);
      expect(existsSync(dir)).toBe(true);
    } finally {
      await containersOf(a).end(sessionId);
    }
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it('a warm pool is refused with shared sessions, at composition', () => {
    expect(() => containerEnvironment({ workspace: root, sharedSessions: true, container: { image: TEST_IMAGE, warmPool: 1 } })).toThrow(SHARED_POOL_REFUSED);
  });
});
