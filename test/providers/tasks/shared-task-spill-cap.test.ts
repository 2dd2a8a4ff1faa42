// A shared task's output kept in the sandbox is capped by executor.maxSpillBytes (docs/shared-sessions.md#tasks),
// and a task printing past the cap reads as a local task does: its start while it runs, its tail at the end with the
// spill said to be unavailable. The same script runs on a local container host and on a shared one, on the real engine.
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost, type HostSession } from '../../../src/index.js';
import { SessionContainersToken } from '../../../src/providers/exec/engine/session-containers.js';
import { runCap, TASK_FILES_DIR } from '../../../src/providers/exec/engine/detached-task.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const LIMITS = { maxOutputBytes: 1000, maxSpillBytes: 4000 };
// About 110 kB between a start and an end, each waiting for the test: the start is read, the files looked at when all is printed.
const COMMAND = 'echo start-of-output; until [ -e /tmp/go ]; do sleep 0.05; done; seq 1 20000; touch /tmp/printed; until [ -e /tmp/done ]; do sleep 0.05; done; echo end-of-output';

describeWithEngine(`a shared task printing past executor.maxSpillBytes${NEEDS_ENGINE}`, () => {
  let root: string;
  const unique = Date.now().toString(36);
  const hosts: DshHost[] = [];
  const host = async (sharedSessions: boolean): Promise<DshHost> => {
    const made = await createHost(...containerEnvironment({ workspace: root, sharedSessions, container: { image: TEST_IMAGE, channel: true }, executor: LIMITS }));
    hosts.push(made);
    return made;
  };
  const call = async (session: HostSession, tool: string, args: Record<string, unknown>) => text(await session.call(tool, args));
  const bash = (session: HostSession, command: string) => call(session, 'bash', { command, description: 'Step' });
  async function until(what: string, read: () => Promise<string>, done: (text: string) => boolean): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const got = await read();
      if (done(got)) return got;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  /** Runs the task; `printed` looks at the sandbox once everything is printed. Resolves with the first and the final read. */
  async function script(session: HostSession, printed: () => Promise<void>): Promise<{ first: string; final: string }> {
    expect(await call(session, 'bash', { command: COMMAND, description: 'Print a lot', run_in_background: true })).toBe('started background task bash-1');
    const first = await until('the start', () => call(session, 'task_output', { task_id: 'bash-1' }), (got) => got.startsWith('start-of-output'));
    await bash(session, 'touch /tmp/go');
    await until('everything printed', () => bash(session, '[ -e /tmp/printed ] && echo printed || echo not yet'), (got) => got === 'printed');
    await printed();
    await bash(session, 'touch /tmp/done');
    return { first, final: await call(session, 'task_output', { task_id: 'bash-1', wait: true, timeout_ms: 30_000 }) };
  }

  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-cap-ws-')));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((made) => made.dispose()));
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps at most maxSpillBytes of each stream in the sandbox, and reads the start and the end as a local task does', async () => {
    const local = await host(false);
    const shared = await host(true);
    const id = `cap-${unique}`;
    const onLocal = local.openSession({ id: `${id}-local`, cwd: root });
    const onShared = shared.openSession({ id, cwd: root });
    /** The task's output files in the sandbox and their sizes. */
    const files = async (): Promise<Record<string, number>> => {
      const dir = path.join((await shared.get(SessionContainersToken).sessionDirOf(onShared))!, TASK_FILES_DIR);
      const names = readdirSync(dir).filter((name) => /^r-[0-9a-f]{16}\.(out|err)/.test(name));
      // The copier may remove a segment between the listing and its stat.
      const sizes = names.map((name) => [name.replace(/^r-[0-9a-f]{16}/, 'r'), statSync(path.join(dir, name), { throwIfNoEntry: false })?.size]);
      return Object.fromEntries(sizes.filter(([, size]) => size !== undefined));
    };
    const total = (sizes: Record<string, number>) => Object.values(sizes).reduce((sum, size) => sum + size, 0);
    try {
      const expected = await script(onLocal, async () => undefined);
      // Looked at while the copier catches up with the printing: until the last segment holds the printed end.
      const samples: Array<Record<string, number>> = [];
      const { bytes, segment } = runCap(LIMITS);
      const printedBytes = 'start-of-output\n'.length + Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('').length;
      const last = Math.floor((printedBytes - bytes) / segment) + 1;
      const caughtUp = async () => {
        samples.push(await files());
        return samples[samples.length - 1]![`r.out.${last}`] === printedBytes - bytes - (last - 1) * segment;
      };
      const got = await script(onShared, () => until('the copier caught up', async () => String(await caughtUp()), (done) => done === 'true').then(() => undefined));

      // What a local task shows: its start while it runs, then its tail with the spill gone.
      expect(expected.first).toBe('start-of-output\n[status: running]');
      expect(expected.final).toMatch(/\n19999\n20000\nend-of-output\n\[some output was dropped from memory; full output: \(unavailable\)\]\n\[status: completed, exit code: 0\]$/);
      expect(got).toEqual(expected);

      // ~110 kB printed: the stream's own file is gone (it no longer held all of it), segments hold its newest bytes.
      expect(Math.max(...samples.map(total))).toBeLessThanOrEqual(LIMITS.maxSpillBytes);
      const after = await files();
      expect(after['r.out']).toBeUndefined();
      expect(Object.keys(after).filter((name) => /^r\.out\.\d+$/.test(name)).length).toBeGreaterThan(0);
      expect(total(after)).toBeLessThanOrEqual(LIMITS.maxSpillBytes);
    } finally {
      await Promise.all([onLocal.dispose(), onShared.dispose()]);
      await shared.get(SessionContainersToken).end(id);
    }
  }, 90_000);

  it('a command that leaves a process holding its output open ends once the copiers gave it 5 s, with what it printed', async () => {
    const shared = await host(true);
    const id = `cap-left-${unique}`;
    const session = shared.openSession({ id, cwd: root });
    try {
      const started = Date.now();
      expect(await call(session, 'bash', { command: 'sleep 60 & echo left', description: 'Leaves a sleep', run_in_background: true })).toBe('started background task bash-1');
      expect(await call(session, 'task_output', { task_id: 'bash-1', wait: true, timeout_ms: 30_000 })).toBe('left\n[status: completed, exit code: 0]');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await session.dispose();
      await shared.get(SessionContainersToken).end(id);
    }
  }, 60_000);

  it('a task within the cap keeps its whole output in its own file, named when a read shows only its tail', async () => {
    const shared = await host(true);
    const id = `cap-small-${unique}`;
    const session = shared.openSession({ id, cwd: root });
    try {
      expect(await call(session, 'bash', { command: 'seq 1 500', description: 'Within the cap', run_in_background: true })).toBe('started background task bash-1');
      const final = await call(session, 'task_output', { task_id: 'bash-1', wait: true, timeout_ms: 30_000 });
      const dir = path.join((await shared.get(SessionContainersToken).sessionDirOf(session))!, TASK_FILES_DIR);
      const out = readdirSync(dir).filter((name) => name.endsWith('.out'));
      expect(out).toHaveLength(1);
      // 1892 bytes: more than a read shows, less than the cap.
      expect(statSync(path.join(dir, out[0]!)).size).toBe(1892);
      expect(final).toContain(`\n500\n[some output was dropped from memory; full output: ${path.join(dir, out[0]!)}, ${path.join(dir, out[0]!.replace(/\.out$/, '.err'))}]\n`);
    } finally {
      await session.dispose();
      await shared.get(SessionContainersToken).end(id);
    }
  }, 60_000);
});
