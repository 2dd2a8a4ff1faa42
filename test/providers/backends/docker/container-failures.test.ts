// Failures of the engine or of the container are loud, never hang, and the next call recovers.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { engine, sessionContainers } from '../../../support/container-kit.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const RESTARTED = /^\[container restarted: the previous one stopped \((.+)\)\]$/;

describe('container engine failures', () => {
  it('an unreachable engine is an Error naming the engine, for one-shot and background calls', async () => {
    const host = await createHost(
      ...containerEnvironment({ workspace: os.tmpdir(), container: { image: TEST_IMAGE, host: 'unix:///nonexistent/docker.sock' } }),
    );
    try {
      const result = await host.call('bash', { command: 'true', description: 'Try' });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        "Error: cannot start the session's container: container engine unreachable at unix:///nonexistent/docker.sock (ENOENT)",
      );
    } finally {
      await host.dispose();
    }
  });

  it('rejects a bad container section at composition with the key and the reason', () => {
    expect(() => containerEnvironment({ container: { image: TEST_IMAGE, mounts: ['relative:/x'] } })).toThrow(
      'invalid container config: mounts entry "relative:/x" needs absolute source and target paths',
    );
    expect(() => containerEnvironment({ container: { image: TEST_IMAGE, memory: 'lots' } })).toThrow(/^invalid container config: memory must be/);
    expect(() => containerEnvironment({ container: { image: TEST_IMAGE, colour: 'red' } as never })).toThrow(
      'invalid container config: colour is not a known key',
    );
  });
});

describeWithEngine(`container failures on the real engine${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-fail-')));
    host = await createHost(
      ...containerEnvironment({
        workspace: root,
        container: { image: TEST_IMAGE, memory: '64m', pidsLimit: 40 },
        executor: { graceMs: 300 },
      }),
    );
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('a missing image is an Error that names it', async () => {
    const other = await createHost(...containerEnvironment({ workspace: root, container: { image: 'dsh-tools-no-such-image:1' } }));
    try {
      const result = await other.call('bash', { command: 'true', description: 'Try' });
      expect(text(result)).toMatch(/^Error: cannot start the session's container: image "dsh-tools-no-such-image:1" is not present on the engine/);
    } finally {
      await other.dispose();
    }
  });

  it('a container removed from outside mid-command fails that call and the next call restarts it with a notice', async () => {
    const session = host.openSession({ id: 'killed-outside', cwd: root });
    try {
      await session.call('bash', { command: 'true', description: 'Create the container' });
      const [id] = await sessionContainers(session.id);
      let printed!: () => void;
      const started = new Promise<void>((resolve) => (printed = resolve));
      const running = session.call('bash', { command: 'echo before; sleep 60', description: 'Wait' }, { onProgress: () => printed() });
      await started;
      await engine.remove(id!);
      const failed = await running;
      expect(failed.isError).toBe(true);
      expect(text(failed)).toMatch(/^Error: the session container stopped while the command ran \(.+\)$/);
      const next = await session.call('bash', { command: 'echo again', description: 'Recover' });
      expect(text(next)).toMatch(/^again/);
      const notices = session.takeNotices();
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(RESTARTED);
      expect(await sessionContainers(session.id)).toHaveLength(1);
    } finally {
      await session.dispose();
    }
  });

  it('a command killed by the memory limit ends with the normal exit marker', async () => {
    const session = host.openSession({ id: 'oom', cwd: root });
    try {
      const result = await session.call('bash', {
        command: 'head -c 400m /dev/zero | tail >/dev/null; echo "status ${PIPESTATUS[1]}"',
        description: 'Use too much memory',
      });
      expect(text(result)).toMatch(/^status 137\n\[stderr\]\n.*Killed/s);
      expect(text(await session.call('bash', { command: 'echo alive', description: 'Still there' }))).toBe('alive');
    } finally {
      await session.dispose();
    }
  });

  it('hitting the pids limit is a normal failed command, not a hang', async () => {
    const session = host.openSession({ id: 'pids', cwd: root });
    try {
      const result = await session.call('bash', {
        command: 'for i in $(seq 80); do sleep 30 & done; echo spawned',
        description: 'Fork too much',
      });
      expect(text(result)).toMatch(/Resource temporarily unavailable/);
      expect(text(await session.call('bash', { command: 'echo alive', description: 'Still there' }))).toBe('alive');
    } finally {
      await session.dispose();
    }
  }, 90_000);
});

describeWithEngine(`a persistent shell whose container is removed from outside${NEEDS_ENGINE}`, () => {
  it('reports the shell gone, then runs in a fresh container with the restart notice', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-fail-pty-')));
    const host = await createHost(
      ...containerEnvironment({ workspace: root, shell: 'persistent', container: { image: TEST_IMAGE }, persistent: { timeoutMs: 20_000 } }),
    );
    const session = host.openSession({ id: 'pty-removed', cwd: root });
    try {
      await session.call('bash', { command: 'export KEPT=1' });
      const [id] = await sessionContainers(session.id);
      let printed!: () => void;
      const started = new Promise<void>((resolve) => (printed = resolve));
      const running = session.call('bash', { command: 'echo before; sleep 60' }, { onProgress: () => printed() });
      await started;
      await engine.remove(id!);
      expect(text(await running)).toMatch(/\[shell reset: the next call starts a fresh shell in the workspace\]$/);
      expect(text(await session.call('bash', { command: 'echo ${KEPT:-fresh}' }))).toMatch(/fresh$/);
      expect(session.takeNotices().filter((notice) => RESTARTED.test(notice))).toHaveLength(1);
    } finally {
      await session.dispose();
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
