// Issue 18 row 2: the host's UTS namespace, SysV IPC and kernel keyring seen from inside the sandbox.
// Each one was the host's own before the fix.
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts, onHost, SHELLS } from './support/sandbox-kernel-hosts.js';

describeWithBwrap(`sandbox kernel namespaces: UTS, IPC, cgroup, keyring${NEEDS_BWRAP}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  describe.each(SHELLS)('%s shell', (shell) => {
    it('the host name cannot be changed from inside: a UTS namespace of its own', async () => {
      const { session } = await hosts.session(shell, 'workspace-write');
      const out = await bash(session, 'readlink /proc/self/ns/uts; hostname dsh-pwned 2>/dev/null; echo dsh-pwned > /proc/sys/kernel/hostname 2>/dev/null; hostname');
      const [uts] = out.split('\n');
      expect(uts).not.toBe(readlinkSync('/proc/self/ns/uts'));
      expect(os.hostname()).not.toBe('dsh-pwned');
      expect(out).not.toContain('dsh-pwned');
    });

    it("a host SysV shared-memory segment is out of reach: an IPC namespace of its own", async () => {
      const id = /Shared memory id: (\d+)/.exec(onHost('ipcmk -M 4096'))?.[1];
      expect(id).toBeDefined();
      try {
        const { session } = await hosts.session(shell, 'workspace-write');
        const out = await bash(session, `ipcs -m | awk '$2 == ${id} { print "SEEN" }'; readlink /proc/self/ns/ipc; echo end`);
        expect(out).not.toContain('SEEN');
        expect(out).not.toContain(readlinkSync('/proc/self/ns/ipc'));
        expect(out).toContain('end');
      } finally {
        onHost(`ipcrm -m ${id}`);
      }
    });

    it('a key in the host root user\'s keyring cannot be read: keyctl is refused with EPERM', async () => {
      const secret = `s3cret${process.pid}`;
      const serial = onHost(`perl -e 'my ($t, $d, $p) = ("user", "dsh-kernel-test", "${secret}"); print syscall(248, $t, $d, $p, length $p, -4)'`);
      expect(Number(serial)).toBeGreaterThan(0);
      try {
        const { session } = await hosts.session(shell, 'workspace-write');
        const out = await bash(session, `perl -e '$b = "\\0" x 64; $r = syscall(250, 11, ${serial}, $b, 64); $b =~ s/\\0+$//; print "read=$r errno=", $! + 0, " [$b]\\n"'; grep -c dsh-kernel-test /proc/keys`);
        expect(out).not.toContain(secret);
        expect(out).toContain('read=-1 errno=1 ');
      } finally {
        onHost(`perl -e 'syscall(250, 3, ${serial})'`);
      }
    });

    it('the cgroup tree shows the command its own root, not the server\'s cgroup path', async () => {
      const { session } = await hosts.session(shell, 'workspace-write');
      const out = await bash(session, 'readlink /proc/self/ns/cgroup');
      expect(out.trim()).not.toBe(readlinkSync('/proc/self/ns/cgroup'));
    });
  });
});
