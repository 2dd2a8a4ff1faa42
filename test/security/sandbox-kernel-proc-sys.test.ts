// Issue 18 row 1: /proc/sys (and the kernel's other control and leak files) from inside the sandbox.
// Each attack ran against the host before the fix.
import { existsSync, readFileSync } from 'node:fs';
import { KERNEL_SURFACE } from '../../src/providers/backends/bwrap/bwrap-kernel-surface.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts, MODES, SHELLS } from './support/sandbox-kernel-hosts.js';

const CASES = SHELLS.flatMap((shell) => MODES.map((mode) => [shell, mode] as const));
const sysctl = (name: string): string => readFileSync(`/proc/sys/kernel/${name}`, 'utf8');

describeWithBwrap(`sandbox kernel surface: /proc/sys and the kernel's files${NEEDS_BWRAP}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  describe.each(CASES)('%s shell, %s', (shell, mode) => {
    it('writing the host domainname through /proc/sys/kernel/domainname fails and the host keeps its name', async () => {
      const before = sysctl('domainname');
      const { session } = await hosts.session(shell, mode);
      const out = await bash(session, 'echo dsh-pwned > /proc/sys/kernel/domainname && echo WROTE');
      expect(sysctl('domainname')).toBe(before);
      expect(out).not.toContain('WROTE');
      expect(out).toMatch(/Read-only file system/);
    });

    it('kernel.core_pattern (a pipe there runs as host root) and the other sysctls cannot be opened for writing', async () => {
      const before = sysctl('core_pattern');
      const { session } = await hosts.session(shell, mode);
      const targets = ['kernel/core_pattern', 'vm/drop_caches', 'kernel/hostname', 'fs/file-max'];
      const out = await bash(session, targets.map((t) => `{ exec 3>/proc/sys/${t} && echo "OPENED ${t}"; } 2>/dev/null; echo tried`).join('; '));
      expect(out).not.toContain('OPENED');
      expect(out.match(/tried/g)).toHaveLength(targets.length);
      expect(sysctl('core_pattern')).toBe(before);
    });

    it('the kernel files that leak host secrets or control the host read as nothing (/proc/keys, kallsyms, kmsg, timer_list…)', async () => {
      const present = KERNEL_SURFACE.maskedFiles.filter((file) => existsSync(file));
      expect(present).toContain('/proc/keys');
      const { session } = await hosts.session(shell, mode);
      const out = await bash(session, present.map((file) => `printf '%s %s\\n' ${file} "$(head -c 256 ${file} 2>/dev/null | wc -c)"`).join('; '));
      expect(out.trim().split('\n')).toEqual(present.map((file) => `${file} 0`));
      const sysrq = await bash(session, "{ echo h > /proc/sysrq-trigger && echo SYSRQ; } 2>/dev/null; echo done");
      expect(sysrq).not.toContain('SYSRQ');
    });

    it('/sys is read-only: the host cgroups and kernel knobs cannot be written, the firmware tree is masked', async () => {
      const { session } = await hosts.session(shell, mode);
      const out = await bash(
        session,
        'for f in /sys/fs/cgroup/pids/cgroup.procs /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/uevent_helper; do ' +
          '[ -e "$f" ] || continue; { exec 3>"$f" && echo "OPENED $f"; } 2>/dev/null; done; ls -A /sys/firmware | wc -l; echo end',
      );
      expect(out).not.toContain('OPENED');
      expect(out.trim().split('\n').slice(-2)).toEqual(['0', 'end']);
    });
  });
});
