// decorate() under the container composition with a wrapper that has no
// dispose(): the executor binding's own teardown (`shell.dispose()`) gets the
// executor it built, so host.dispose() resolves and the session's container goes.
import 'reflect-metadata';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { containerEnvironment, createHost, decorate, ShellExecutor, type ExecSpec } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { sessionContainers } from '../support/container-kit.js';

describeWithEngine(`decorate() in the container composition${NEEDS_ENGINE}`, () => {
  it('a wrapper without dispose() neither makes host.dispose() reject nor leaves the container behind', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-deco-')));
    const seen: string[] = [];
    const host = await createHost(
      ...containerEnvironment({ workspace: root, container: { image: TEST_IMAGE } }),
      decorate(ShellExecutor, (inner) => ({
        checkRequest: (request) => inner.checkRequest(request),
        start: (spec) => inner.start(spec),
        run: (spec: ExecSpec, options) => {
          seen.push(spec.command);
          return inner.run(spec, options);
        },
      })),
    );
    try {
      const session = host.openSession({ cwd: root });
      expect((await session.call('bash', { command: 'echo hi', description: 'Say hi' })).content[0]!.text).toBe('hi');
      expect(seen).toEqual(['echo hi']);
      expect(await sessionContainers(session.id)).toHaveLength(1);
      await expect(host.dispose()).resolves.toBeUndefined();
      expect(await sessionContainers(session.id)).toEqual([]);
    } finally {
      await host.dispose().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
