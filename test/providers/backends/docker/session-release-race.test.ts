// A session disposed while its first container is still being created: the
// container and its shared directory go, and a retry for the released
// session (an exec that found its container gone) starts nothing.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { resolveContainerConfig } from '../../../../src/providers/exec/engine/container-config.js';
import { SessionContainers, SHARED_DIR_PREFIX } from '../../../../src/providers/exec/engine/session-containers.js';
import { describeWithEngine, NEEDS_ENGINE, TEST_IMAGE } from '../../../support/container-engine.js';
import { fakeSession } from '../../../support/fake-session.js';
import { engine, sessionContainers } from '../../../support/container-kit.js';

/** This server's shared session directories now in the temp dir. */
function sharedDirs(): string[] {
  return readdirSync(os.tmpdir()).filter((name) => name.startsWith(`${SHARED_DIR_PREFIX}${process.pid}-`));
}

describeWithEngine(`session containers released mid-creation${NEEDS_ENGINE}`, () => {
  it('leave no container and no shared directory, and a retry for the released session is refused', async () => {
    const before = sharedDirs();
    const containers = new SessionContainers(engine, resolveContainerConfig({ image: TEST_IMAGE }), {
      workspaceReadOnly: false,
      maxRetainedSpillBytes: 1 << 20,
      keepSpills: false,
    });
    const session = fakeSession(`release-race-${process.pid}`);
    try {
      const first = containers.acquire(session);
      const disposed = session.dispose();
      await expect(first).rejects.toThrow(`session ${session.id} is disposed`);
      await disposed;
      await expect(containers.acquire(session)).rejects.toThrow(`session ${session.id} is disposed`);
      expect(sharedDirs()).toEqual(before);
      expect(await sessionContainers(session.id)).toEqual([]);
    } finally {
      await containers.dispose();
    }
  });
});
