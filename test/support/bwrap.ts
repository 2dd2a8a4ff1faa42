import { spawnSync } from 'node:child_process';

/**
 * Whether bubblewrap can confine a command on this machine. CI installs it
 * (`.ci/run`); on a machine without it the suites that need a real sandbox
 * are skipped under a name that says why, and the fail-closed suites (which
 * use an unavailable provider) still run.
 */
export const bwrapUsable: boolean =
  spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdio: 'ignore' }).status === 0;

export const NEEDS_BWRAP = bwrapUsable ? '' : ' (skipped: needs bubblewrap — apt-get install -y bubblewrap)';

/** `describe` when bwrap works, else `describe.skip` (the reason is in NEEDS_BWRAP, appended to the name). */
export const describeWithBwrap: jest.Describe = bwrapUsable ? describe : describe.skip;
