// Issue 33 item 5: two process attributes a confined root command could still set. Its audit login
// uid, where the server has none (an unset one may be set once by anyone: the command's acts would be
// logged under any user's name), and its core size limit (a crash would leave the process's memory as
// a `core` file in the workspace). The prelude fixes both before bwrap starts.
import { readdirSync, readFileSync } from 'node:fs';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts, SHELLS } from './support/sandbox-kernel-hosts.js';

const UNSET = '4294967295';
const hostLoginUid = ((): string | null => {
  try {
    return readFileSync('/proc/self/loginuid', 'utf8').trim();
  } catch {
    return null;
  }
})();
const NEEDS_AUDIT = hostLoginUid === null ? ' (skipped: this kernel has no audit login uid)' : '';

describeWithBwrap(`sandbox kernel: login uid and core dumps${NEEDS_BWRAP}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  describe.each(SHELLS)('%s shell', (shell) => {
    (hostLoginUid === null ? it.skip : it)(`the login uid is the server's (or the one it already had) and cannot be changed${NEEDS_AUDIT}`, async () => {
      const { session } = await hosts.session(shell, 'workspace-write');
      const expected = hostLoginUid === UNSET ? String(process.getuid!()) : hostLoginUid!;
      const out = await bash(session, '{ echo 1000 >/proc/self/loginuid && echo written; } 2>/dev/null; echo "now=$(cat /proc/self/loginuid)"');
      expect(out.trim()).toBe(`now=${expected}`);
    });

    it('the core limit is 0, soft and hard, cannot be raised, and a crash leaves no core file in the workspace', async () => {
      const { session, workspace } = await hosts.session(shell, 'workspace-write');
      const out = await bash(
        session,
        'echo "soft=$(ulimit -c) hard=$(ulimit -Hc)"; { ulimit -c unlimited && echo raised; } 2>/dev/null; sh -c \'kill -SEGV $$\'; echo "crashed=$?"',
      );
      // The shell's own "Segmentation fault" report is no part of what is checked.
      const lines = out.trim().split('\n').filter((line) => line !== '[stderr]' && !line.includes('Segmentation fault'));
      expect(lines).toEqual(['soft=0 hard=0', 'crashed=139']);
      expect(readdirSync(workspace).filter((name) => name.startsWith('core'))).toEqual([]);
    });
  });
});
