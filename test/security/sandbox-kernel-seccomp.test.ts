// Issue 18 row 2 (the class): syscalls a shell command never needs, tried from inside the sandbox.
// Each went through to the kernel before the fix; now each fails with EPERM and the command goes on.
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts, SHELLS } from './support/sandbox-kernel-hosts.js';

/** x86_64 numbers (the test machine's ABI): name → number, tried with zero arguments. */
const DENIED: Record<string, number> = {
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  ptrace: 101,
  process_vm_readv: 310,
  perf_event_open: 298,
  bpf: 321,
  userfaultfd: 323,
  kexec_load: 246,
  init_module: 175,
  finit_module: 313,
  reboot: 169,
  swapon: 167,
  acct: 163,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  fsopen: 430,
  open_tree: 428,
  setns: 308,
  open_by_handle_at: 304,
  iopl: 172,
  settimeofday: 164,
  syslog: 103,
  io_uring_setup: 425,
};

/** A perl line that makes syscall `nr` with `args` and prints `name=<errno>` (0 on success). */
const attempt = (name: string, nr: number, args = ''): string =>
  `perl -e '$r = syscall(${nr}${args}); print "${name}=", ($r == -1 ? $! + 0 : 0), "\\n"'`;

const onX64 = process.arch === 'x64' ? describeWithBwrap : describe.skip;

onX64(`sandbox kernel: the seccomp filter${NEEDS_BWRAP}${process.arch === 'x64' ? '' : ' (skipped: the syscall numbers are x86_64)'}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  describe.each(SHELLS)('%s shell', (shell) => {
    it('the command runs under a seccomp filter (Seccomp: 2)', async () => {
      const { session } = await hosts.session(shell);
      expect(await bash(session, "grep '^Seccomp:' /proc/self/status")).toBe('Seccomp:\t2');
    });

    it('keyring, ptrace, module, mount, bpf, io_uring, clock and reboot syscalls fail with EPERM and the command keeps running', async () => {
      const { session } = await hosts.session(shell);
      const script = Object.entries(DENIED).map(([name, nr]) => attempt(name, nr)).join('; ');
      const out = await bash(session, `${script}; echo still-running`);
      expect(out.trim().split('\n')).toEqual([...Object.keys(DENIED).map((name) => `${name}=1`), 'still-running']);
    });

    it('new namespaces are refused (unshare -U, clone with CLONE_NEWUSER) but plain unshare flags and fork work; clone3 says ENOSYS', async () => {
      const { session } = await hosts.session(shell);
      const out = await bash(
        session,
        [
          'unshare -U true 2>/dev/null; echo "unshare-user=$?"',
          attempt('clone_newuser', 56, ', 0x10000011, 0, 0, 0, 0'),
          attempt('unshare_newtime', 272, ', 0x80'),
          attempt('unshare_files', 272, ', 0x400'),
          attempt('clone3', 435, ', 0, 0'),
          '(echo forked)',
        ].join('; '),
      );
      expect(out.trim().split('\n')).toEqual(['unshare-user=1', 'clone_newuser=1', 'unshare_newtime=1', 'unshare_files=0', 'clone3=38', 'forked']);
    });

    it('a process cannot attach to another one with ptrace (strace of a sibling is refused)', async () => {
      const { session } = await hosts.session(shell, 'workspace-write');
      const out = await bash(session, 'sleep 30 & p=$!; perl -e \'$r = syscall(101, 16, $ARGV[0], 0, 0); print "attach=", ($r == -1 ? $! + 0 : 0), "\\n"\' $p; kill $p');
      expect(out).toContain('attach=1');
    });
  });
});
