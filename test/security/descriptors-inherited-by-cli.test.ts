// Issue 18 row 3: a descriptor the server inherited (`exec 300>>file` before
// starting it) was open inside every command, confined or not, and writing
// to it changed a file outside. The CLI is our own process: it closes them.
import { writeFileSync } from 'node:fs';
import { ensureBuilt } from '../support/built-server.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { cliCallWithInheritedFds, INHERITED_FDS, leakRig, listedFds, WRITE_THROUGH_INHERITED, type LeakRig } from './support/descriptors-kit.js';

const SLOW_MS = 120_000;

let rig: LeakRig;
beforeAll(() => ensureBuilt(), SLOW_MS);
beforeEach(() => {
  rig = leakRig();
});
afterEach(() => rig.remove());

async function expectNoLeak(options: readonly string[]): Promise<void> {
  const { stdout } = await cliCallWithInheritedFds(rig, options, WRITE_THROUGH_INHERITED);
  // The command ran and listed its descriptors: none of the inherited ones.
  expect(stdout).toContain('fds: 0 1 2');
  for (const fd of INHERITED_FDS) expect(listedFds(stdout)).not.toContain(fd);
  expect(rig.leaked()).toBe('');
}

describe('descriptors inherited by `dsh-tools call` (issue 18 row 3)', () => {
  it('a one-shot command cannot write through a descriptor the CLI inherited', async () => {
    await expectNoLeak([]);
  }, SLOW_MS);

  it('a config read from a descriptor the command line names (`--config <(…)`) still works, and the command gets none of them', async () => {
    const config = `${rig.workspace}/../config.json`;
    writeFileSync(config, JSON.stringify({ env: { test: { DSH_FROM_CONFIG: 'yes' } } }));
    const { stdout } = await cliCallWithInheritedFds(rig, ['--config', '/dev/fd/7'], `echo "config=$DSH_FROM_CONFIG"; ${WRITE_THROUGH_INHERITED}`, `7<"${config}"`);
    expect(stdout).toContain('config=yes');
    expect(stdout).toContain('fds: 0 1 2');
    expect(listedFds(stdout)).not.toContain(7);
    for (const fd of INHERITED_FDS) expect(listedFds(stdout)).not.toContain(fd);
    expect(rig.leaked()).toBe('');
  }, SLOW_MS);

  it('a persistent-shell command cannot write through a descriptor the CLI inherited', async () => {
    await expectNoLeak(['--shell', 'persistent']);
  }, SLOW_MS);
});

describeWithBwrap(`descriptors inherited by a sandboxed \`dsh-tools call\` (issue 18 row 3)${NEEDS_BWRAP}`, () => {
  it('a sandboxed one-shot command cannot write through a descriptor the CLI inherited', async () => {
    await expectNoLeak(['--sandbox', 'workspace-write']);
  }, SLOW_MS);

  it('a sandboxed persistent-shell command cannot write through a descriptor the CLI inherited', async () => {
    await expectNoLeak(['--sandbox', 'workspace-write', '--shell', 'persistent']);
  }, SLOW_MS);
});
