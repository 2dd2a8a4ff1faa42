// Issue 18 row 8, the local (unconfined) path: the leftover count of a call
// is what its tag reaper kills. Tags were `<instance>.<counter>`, so a
// command that knows its own tag could start processes carrying the next
// call's, and that call (another session's, maybe) reported them as its own
// leftovers. Tags are now random.
import { INSTANCE_ID } from '../../src/providers/exec/process/process-tag.js';
import { killTaggedWithPrefix } from '../../src/providers/exec/process/leftover-reaper.js';
import { LocalShellExecutor } from '../../src/providers/backends/local/local-shell-executor.js';
import { pollUntil } from '../support/shell-test-kit.js';
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Leaves a daemon (its own session, a tag no call has) that keeps starting
 * short sleeps under each of the next few counter tags for two seconds.
 */
function plantNextTags(ready: string): string {
  const planter =
    'i=${DSH_PROCESS_TAG%.*}; n=${DSH_PROCESS_TAG##*.}; ' +
    `: > ${ready}; ` +
    'for r in $(seq 40); do for k in 1 2 3 4; do DSH_PROCESS_TAG=$i.$((n+k)) sleep 3 & done; sleep 0.05; done';
  // The call waits for the planter's mark: until then the fork still carries the call's tag and its end would kill it.
  return (
    `DSH_PROCESS_TAG=${INSTANCE_ID}.planter setsid bash -c '${planter}' </dev/null >/dev/null 2>&1 & ` +
    `until [ -e ${ready} ]; do sleep 0.01; done`
  );
}

describe("forging another call's leftover count on the local path (issue 18 row 8)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-forged-tag-'));
  const executor = new LocalShellExecutor({ cwd: dir, graceMs: 200, prestart: false });
  afterAll(async () => {
    await executor.dispose();
    killTaggedWithPrefix(`${INSTANCE_ID}.`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("processes started under the next call's guessed tag are not reported as that call's leftovers", async () => {
    const ready = path.join(dir, 'planted');
    await executor.run(executor.checkRequest({ command: plantNextTags(ready) }));
    expect(await pollUntil(() => existsSync(ready))).toBe(true);
    // The next call starts a process of its own, so its reaper scans every pid started since.
    const next = await executor.run(executor.checkRequest({ command: 'sleep 0.3; true' }));
    expect(next.exitCode).toBe(0);
    expect(next.leftoversKilled).toBeUndefined();
  });
});
