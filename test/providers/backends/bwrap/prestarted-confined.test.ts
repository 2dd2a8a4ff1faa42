// Pre-started one-shot shells under a confinement (real bwrap): a shell is
// started under the session's mode of the moment, and a call in another mode
// never runs in it (it is killed, the call spawned plainly).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isAlivePid } from '../../../support/process-table.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';
import { pollUntil } from '../../../support/shell-test-kit.js';
import { confinedRig, type ConfinedRig, type ModeRequest } from '../../../support/sandbox-test-kit.js';

describeWithBwrap(`pre-started shells under bwrap${NEEDS_BWRAP}`, () => {
  let rig: ConfinedRig;
  let ws: ConfinedRig['ws'];
  let executor: ConfinedRig['executor'];
  beforeEach(() => {
    rig = confinedRig();
    ({ ws, executor } = rig);
  });
  afterEach(() => rig.dispose());

  const run = (request: ModeRequest) => rig.run(request);
  async function waiting(): Promise<number> {
    expect(await pollUntil(() => executor.prestartedPids.length === 1)).toBe(true);
    return executor.prestartedPids[0]!;
  }

  it('runs a call in the shell pre-started under the same mode, still confined', async () => {
    await run({ command: 'true' });
    await waiting();
    const result = await run({ command: `touch ${ws.dir}/x` });
    expect(executor.prestartedRuns).toBe(1);
    expect(result).toMatchObject({ sandboxMode: 'read-only', sandboxDenied: true });
    expect(existsSync(path.join(ws.dir, 'x'))).toBe(false);
  });

  it('discards the waiting shell when the mode changed, and pre-starts under the new one', async () => {
    await run({ command: 'true' });
    const readOnly = await waiting();
    const widened = await run({ command: 'touch a && echo ok', sandboxMode: 'workspace-write' });
    expect(widened).toMatchObject({ stdout: 'ok\n', sandboxMode: 'workspace-write' });
    expect(executor.prestartedRuns).toBe(0);
    expect(await pollUntil(() => !isAlivePid(readOnly))).toBe(true);

    // The shell started after that call is a workspace-write one: a read-only call must not get it.
    const writable = await waiting();
    const narrowed = await run({ command: 'touch b' });
    expect(narrowed).toMatchObject({ sandboxMode: 'read-only', sandboxDenied: true });
    expect(existsSync(path.join(ws.dir, 'b'))).toBe(false);
    expect(executor.prestartedRuns).toBe(0);
    expect(await pollUntil(() => !isAlivePid(writable))).toBe(true);

    // An unconfined (escalated) call does not get a confined shell, nor the other way round.
    await waiting();
    const escalated = await run({ command: 'echo $$', sandboxMode: 'danger-full-access' });
    expect(escalated).toMatchObject({ exitCode: 0, sandboxMode: 'danger-full-access' });
    expect(executor.prestartedRuns).toBe(0);
  });
});
