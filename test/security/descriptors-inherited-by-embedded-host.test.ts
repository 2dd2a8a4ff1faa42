// Issue 18 row 3 for a library embedding: the host process is someone
// else's, so its inherited descriptors stay open in it, but no command —
// one-shot, pre-started, background, persistent, confined or not — gets one.
import { ensureBuilt } from '../support/built-server.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { INHERITED_FDS, leakRig, listedFds, type LeakRig } from './support/descriptors-kit.js';
import { runEmbeddedHost } from './support/descriptors-embedded-host.js';

const SLOW_MS = 180_000;

let rig: LeakRig;
beforeAll(() => ensureBuilt(), SLOW_MS);
beforeEach(() => {
  rig = leakRig();
});
afterEach(() => rig.remove());

async function expectNoLeak(sandboxed: boolean): Promise<void> {
  const report = await runEmbeddedHost(rig, sandboxed);
  for (const [call, output] of Object.entries(report.outputs)) {
    if (call === 'background') continue;
    expect({ call, ran: output.includes('fds: 0 1 2') }).toEqual({ call, ran: true });
    for (const fd of INHERITED_FDS) expect({ call, fds: listedFds(output) }).not.toEqual({ call, fds: expect.arrayContaining([fd]) });
  }
  expect(rig.leaked()).toBe('');
  // The embedding process's own descriptors are left alone.
  expect(report.hostStillHolds).toEqual(INHERITED_FDS.map(() => true));
}

describe('descriptors inherited by an embedding host (issue 18 row 3)', () => {
  it('one-shot, pre-started, background and persistent commands cannot write through the host process\'s inherited descriptors', async () => {
    await expectNoLeak(false);
  }, SLOW_MS);
});

describeWithBwrap(`descriptors inherited by a sandboxed embedding host (issue 18 row 3)${NEEDS_BWRAP}`, () => {
  it('sandboxed one-shot, pre-started, background and persistent commands cannot write through them either', async () => {
    await expectNoLeak(true);
  }, SLOW_MS);
});
