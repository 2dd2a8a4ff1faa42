// Issue 33 items 5 and "held": the seccomp filter through both ABIs. The 64-bit perl probes of
// sandbox-kernel-seccomp.test.ts cover most of the deny-list; here, raw from assembled probes, the
// 32-bit ABI (int 0x80) gets the whole held list, and both ABIs get what that file lacks plus the
// third round's gaps: open_tree_attr (Linux 6.15), memfd_secret, personality flags, TIOCSETD, and a
// syscall number above every one the filter knows (refused with ENOSYS, as on an older kernel).
import path from 'node:path';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { ia32Usable, NEEDS_IA32, writeRawSyscall, type Abi, type Argument } from './support/raw-syscall-elf.js';
import { bash, KernelHosts, SHELLS } from './support/sandbox-kernel-hosts.js';

const CLONE_NEWUSER = 0x10000000;
const ADDR_NO_RANDOMIZE = 0x0040000;
const READ_IMPLIES_EXEC = 0x0400000;
const TIOCSETD = 0x5423;
/** N_TTY, the discipline a terminal already has: harmless should the call ever go through. */
const N_TTY = Buffer.alloc(4);

interface Probe {
  readonly name: string;
  readonly nr: number;
  readonly args?: readonly Argument[];
  /** The exit status: 1 EPERM, 38 ENOSYS, 0 success. */
  readonly status: number;
}

const denied = (entries: Record<string, number>): Probe[] => Object.entries(entries).map(([name, nr]) => ({ name, nr, status: 1 }));

const PROBES: Record<Abi, readonly Probe[]> = {
  i386: [
    ...denied({
      keyctl: 288,
      mount: 21,
      perf_event_open: 336,
      bpf: 357,
      userfaultfd: 374,
      open_by_handle_at: 342,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      move_mount: 429,
      open_tree: 428,
      mount_setattr: 442,
      open_tree_attr: 467,
      setns: 346,
      process_vm_readv: 347,
      process_vm_writev: 348,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      memfd_secret: 447,
    }),
    { name: 'ptrace_traceme', nr: 26, args: [0, 0, 0, 0], status: 1 },
    { name: 'unshare_newuser', nr: 310, args: [CLONE_NEWUSER], status: 1 },
    { name: 'personality_no_aslr', nr: 136, args: [ADDR_NO_RANDOMIZE], status: 1 },
    { name: 'personality_exec', nr: 136, args: [READ_IMPLIES_EXEC], status: 1 },
    { name: 'personality_query', nr: 136, args: [0xffffffff], status: 0 },
    { name: 'tiocsetd', nr: 54, args: [0, TIOCSETD, N_TTY], status: 1 },
    { name: 'beyond_known', nr: 470, status: 38 },
    { name: 'far_beyond', nr: 1000, status: 38 },
  ],
  x86_64: [
    ...denied({
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      move_mount: 429,
      mount_setattr: 442,
      open_tree_attr: 467,
      process_vm_writev: 311,
      io_uring_enter: 426,
      io_uring_register: 427,
      kcmp: 312,
      pidfd_getfd: 438,
      memfd_secret: 447,
    }),
    { name: 'ptrace_traceme', nr: 101, args: [0, 0, 0, 0], status: 1 },
    { name: 'personality_no_aslr', nr: 135, args: [ADDR_NO_RANDOMIZE], status: 1 },
    { name: 'personality_exec', nr: 135, args: [READ_IMPLIES_EXEC], status: 1 },
    { name: 'personality_query', nr: 135, args: [0xffffffff], status: 0 },
    { name: 'tiocsetd', nr: 16, args: [0, TIOCSETD, N_TTY], status: 1 },
    { name: 'beyond_known', nr: 470, status: 38 },
    { name: 'far_beyond', nr: 1000, status: 38 },
  ],
};

const onX64 = process.arch === 'x64' ? describeWithBwrap : describe.skip;

onX64(`sandbox kernel: the seccomp filter through both ABIs${NEEDS_BWRAP}${process.arch === 'x64' ? '' : ' (skipped: the probes are x86_64 programs)'}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  describe.each(SHELLS)('%s shell', (shell) => {
    for (const [abi, skipped] of [
      ['x86_64', ''],
      ['i386', NEEDS_IA32],
    ] as const) {
      const run = abi === 'i386' && !ia32Usable ? it.skip : it;
      run(`${abi}: each probe is refused (EPERM, ENOSYS above the known numbers), the personality query answers, the command keeps running${skipped}`, async () => {
        const { session, workspace } = await hosts.session(shell, 'workspace-write');
        const lines = PROBES[abi].map((probe) => {
          writeRawSyscall(path.join(workspace, `.probe-${probe.name}`), abi, probe.nr, probe.args ?? []);
          return `./.probe-${probe.name}; echo "${probe.name}=$?"`;
        });
        const out = await bash(session, [...lines, 'echo still-running'].join('\n'));
        expect(out.trim().split('\n')).toEqual([...PROBES[abi].map((probe) => `${probe.name}=${probe.status}`), 'still-running']);
      });
    }
  });
});
