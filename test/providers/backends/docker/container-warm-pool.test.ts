// Issue 32 item 1 on the real engine: `container.warmPool` starts containers before any session, a new
// session's first call runs in one of them (untouched until then), the pool refills, two sessions never
// share one, and nothing is left after the host's disposal.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, LABELS, type DshHost } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { engine } from '../../../support/container-kit.js';
import { waitUntil } from '../../../support/process-table.js';
import { SessionContainersToken } from '../../../../src/providers/exec/engine/session-containers.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** Ids of this process's containers (each test file is one process). */
const ours = async (): Promise<string[]> => (await engine.list([`${LABELS.managed}=1`, `${LABELS.pid}=${process.pid}`])).map((c) => c.id);

describeWithEngine(`container warm pool${NEEDS_ENGINE}`, () => {
  let host: DshHost | undefined;
  let root: string;
  beforeEach(() => void (root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-pool-')))));
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it('new sessions take pre-started containers, untouched, one each; the pool refills; disposal leaves none', async () => {
    host = await createHost(...containerEnvironment({ workspace: root, container: { image: TEST_IMAGE, warmPool: 2 } }));
    const containers = host.get(SessionContainersToken);
    await waitUntil(() => containers.pooled === 2, 'two containers are ready before any session', 60_000);
    const pooled = await ours();
    expect(pooled).toHaveLength(2);
    const where = async () => {
      const session = host!.openSession({ cwd: root });
      const out = text(await session.call('bash', { command: 'cat /etc/hostname; pwd; ls -A /tmp', description: 'Where am I' }));
      return out.split('\n');
    };
    const [a, aCwd, ...aTmp] = await where();
    const [b] = await where();
    expect(pooled.some((id) => id.startsWith(a!))).toBe(true);
    expect(pooled.some((id) => id.startsWith(b!))).toBe(true);
    expect(a).not.toBe(b);
    // Nothing was written in it before the claim, and it works like a fresh one.
    // Its /tmp holds only the mount points of the workspace and the session directory, as a fresh one's.
    expect(aTmp.sort()).toEqual([path.basename(root), expect.stringMatching(/^dsh-ct-\d+-/)].sort());
    expect(aCwd).toBe(root);
    // Two taken: two more started for the next sessions.
    await waitUntil(() => containers.pooled === 2, 'the pool refilled', 60_000);
    expect(await ours()).toHaveLength(4);
    await host.dispose();
    host = undefined;
    expect(await ours()).toEqual([]);
  });

  it('warmPool outside 0..32 is refused at composition', () => {
    expect(() => containerEnvironment({ workspace: root, container: { image: TEST_IMAGE, warmPool: 33 } })).toThrow(
      'invalid container config: warmPool must be an integer from 0 to 32, got 33',
    );
  });
});
