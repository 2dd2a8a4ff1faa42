// Issue 18 row 8 (bwrap): the leftover count of a confined command came back
// as a stderr trailer whose token any process could read from the reaper's
// argv, so a command could report any count it liked. The count now travels
// on the reaper's own pipe, and the reaper is out of the sandbox's reach.
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { pollUntil } from '../support/shell-test-kit.js';
import { confinedRig, type ConfinedRig } from '../support/sandbox-test-kit.js';
import { FORGED, PRINT_TRAILER_THEN_KILL_REAPER, PRINT_TRAILER_WITH_TOKEN, WRITE_INTO_REAPER_DESCRIPTORS } from './support/forged-trailer-kit.js';

describeWithBwrap(`forging the sandbox's leftover count (issue 18 row 8)${NEEDS_BWRAP}`, () => {
  let rig: ConfinedRig;
  beforeEach(() => {
    rig = confinedRig('workspace-write');
  });
  afterEach(() => rig.dispose());

  it('a trailer printed with the token read from /proc/$PPID/cmdline is output, not a count', async () => {
    const result = await rig.run({ command: PRINT_TRAILER_WITH_TOKEN });
    expect(result.stderr).toContain(`:${FORGED}\x1f`);
    expect(result.leftoversKilled).toBeUndefined();
  });

  it('the same forgery from a pre-started shell is output, not a count', async () => {
    await rig.run({ command: 'true' });
    expect(await pollUntil(() => rig.executor.prestartedPids.length === 1)).toBe(true);
    const result = await rig.run({ command: PRINT_TRAILER_WITH_TOKEN });
    expect(rig.executor.prestartedRuns).toBe(1);
    expect(result.leftoversKilled).toBeUndefined();
  });

  it("writing a record into the reaper's descriptors (via /proc/$PPID/fd and pidfd_getfd) reports nothing forged", async () => {
    const result = await rig.run({ command: WRITE_INTO_REAPER_DESCRIPTORS });
    expect(result.leftoversKilled).toBeUndefined();
    // Nothing reached the reaper's descriptors either (its stdout is the command's).
    expect(result.stdout).toBe('tried\n');
  });

  it("writing a record into the reaper's descriptors and then killing it, so no genuine report follows, reports no count", async () => {
    const result = await rig.run({ command: `${WRITE_INTO_REAPER_DESCRIPTORS}; kill -9 $PPID` });
    expect(result.leftoversKilled).toBeUndefined();
  });

  it('killing the reaper after printing a trailer reports no count', async () => {
    const result = await rig.run({ command: PRINT_TRAILER_THEN_KILL_REAPER });
    expect(result.leftoversKilled).toBeUndefined();
  });
});
