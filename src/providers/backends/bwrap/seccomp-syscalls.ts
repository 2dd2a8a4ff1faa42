/**
 * The syscalls the confinement's seccomp filter refuses, why, and their
 * numbers per ABI (from the kernel's uapi `unistd` headers; the tests check
 * them against the headers when those are installed). A syscall an ABI lacks
 * is absent from its table.
 */

/** `seccomp_data.arch` values (linux/audit.h). */
export const AUDIT_ARCH = Object.freeze({ x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7 });
export type SeccompArch = keyof typeof AUDIT_ARCH;

/** Syscall numbers with this bit set on AUDIT_ARCH_X86_64 are the x32 ABI. */
export const X32_SYSCALL_BIT = 0x40000000;

/** Denied outright (EPERM), each with the reason a shell command never needs it. */
export const DENIED_SYSCALLS: Readonly<Record<string, string>> = Object.freeze({
  keyctl: 'the kernel keyring has no namespace: the host\'s keys would be reachable',
  add_key: 'the kernel keyring has no namespace',
  request_key: 'the kernel keyring has no namespace (and it can start a host upcall helper)',
  ptrace: 'reads and rewrites other processes; debuggers are not a shell tool\'s job',
  process_vm_readv: 'reads another process\'s memory (ptrace without the tracing)',
  process_vm_writev: 'writes another process\'s memory',
  pidfd_getfd: 'steals a descriptor from another process (ptrace access)',
  kcmp: 'compares kernel objects of other processes (ptrace access, leaks kernel layout)',
  perf_event_open: 'kernel profiling: large attack surface, side channels',
  bpf: 'loads programs into the kernel',
  userfaultfd: 'stalls the kernel at a chosen page fault, a staple of kernel exploits',
  kexec_load: 'replaces the running kernel',
  kexec_file_load: 'replaces the running kernel',
  init_module: 'loads kernel modules',
  finit_module: 'loads kernel modules',
  delete_module: 'unloads kernel modules',
  reboot: 'reboots or halts the machine',
  swapon: 'changes the host\'s swap',
  swapoff: 'changes the host\'s swap',
  acct: 'switches the host\'s process accounting',
  mount: 'would undo the read-only binds',
  umount: 'would uncover what the sandbox masks',
  umount2: 'would uncover what the sandbox masks',
  pivot_root: 'changes the root of the mount namespace',
  fsopen: 'the new mount API: same as mount',
  fsconfig: 'the new mount API: same as mount',
  fsmount: 'the new mount API: same as mount',
  fspick: 'the new mount API: reconfigures an existing mount',
  move_mount: 'the new mount API: moves mounts',
  open_tree: 'the new mount API: clones mounts',
  open_tree_attr: 'the new mount API (Linux 6.15): clones mounts and changes their flags',
  mount_setattr: 'the new mount API: would clear read-only flags',
  setns: 'joins another namespace',
  open_by_handle_at: 'opens files by handle, past every mount (the "shocker" escape)',
  iopl: 'raw I/O port access',
  ioperm: 'raw I/O port access',
  modify_ldt: 'x86 segment tricks used by exploits; no shell tool needs them',
  vm86: 'virtual 8086 mode: legacy, exploit surface',
  vm86old: 'virtual 8086 mode: legacy, exploit surface',
  settimeofday: 'sets the host\'s clock',
  stime: 'sets the host\'s clock',
  clock_settime: 'sets the host\'s clock',
  clock_settime64: 'sets the host\'s clock',
  clock_adjtime: 'adjusts the host\'s clock',
  clock_adjtime64: 'adjusts the host\'s clock',
  adjtimex: 'adjusts the host\'s clock',
  syslog: 'reads or clears the kernel log (kernel addresses, other users\' events)',
  io_uring_setup: 'io_uring runs operations the filter never sees; large kernel attack surface',
  io_uring_enter: 'io_uring (see io_uring_setup)',
  io_uring_register: 'io_uring (see io_uring_setup)',
  quotactl: 'changes disk quotas',
  quotactl_fd: 'changes disk quotas',
  lookup_dcookie: 'kernel profiling internals',
  uselib: 'legacy library loader, exploit surface',
  vhangup: 'hangs up the terminal',
  fanotify_init: 'watches the whole filesystem\'s accesses',
  nfsservctl: 'kernel NFS server control (removed)',
  _sysctl: 'the old binary sysctl interface',
  memfd_secret: 'memory the kernel hides even from itself: no shell tool needs it, and it pins unswappable pages',
});

/**
 * `clone3` and `openat2` take their flags and mode in memory the filter
 * cannot read: ENOSYS, so libc falls back to `clone` and `openat`, which are
 * checked (glibc's `open`/`openat` never use `openat2`; callers of `openat2`
 * are told to fall back on ENOSYS, as on kernels before 5.6).
 */
export const ENOSYS_SYSCALLS = Object.freeze(['clone3', 'openat2'] as const);

/**
 * The highest syscall number this filter knows: file_setattr (Linux 6.17),
 * 469 on every ABI (since Linux 5.1 a new syscall gets one number
 * everywhere). Anything above it gets ENOSYS, as on a kernel that lacks it:
 * a syscall added by a newer kernel stays refused until it has been looked
 * at and this number raised.
 */
export const HIGHEST_KNOWN_SYSCALL = 469;

/**
 * Where each mode-taking syscall has its mode argument (and, for the opens,
 * its flags: the mode counts only with O_CREAT or O_TMPFILE). `node` marks
 * mknod, whose mode also carries the file type.
 */
export const MODE_ARGUMENTS: Readonly<Record<string, { readonly mode: number; readonly flags?: number; readonly node?: true }>> = Object.freeze({
  chmod: { mode: 1 },
  fchmod: { mode: 1 },
  fchmodat: { mode: 2 },
  fchmodat2: { mode: 2 },
  creat: { mode: 1 },
  open: { flags: 1, mode: 2 },
  openat: { flags: 2, mode: 3 },
  mknod: { mode: 1, node: true },
  mknodat: { mode: 2, node: true },
});

/** `personality` is allowed only to ask (0xffffffff) or to set a plain Linux persona without flags (see seccomp-filter.ts). */
export const PERSONALITY = 'personality';
/** `ioctl` is refused only for the requests that inject terminal input (TIOCSTI, TIOCLINUX). */
export const IOCTL = 'ioctl';

type Table = Readonly<Record<string, number>>;

const X86_64: Table = {
  keyctl: 250, add_key: 248, request_key: 249, ptrace: 101, process_vm_readv: 310, process_vm_writev: 311,
  pidfd_getfd: 438, kcmp: 312, perf_event_open: 298, bpf: 321, userfaultfd: 323, kexec_load: 246,
  kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176, reboot: 169, swapon: 167,
  swapoff: 168, acct: 163, mount: 165, umount2: 166, pivot_root: 155, fsopen: 430, fsconfig: 431, fsmount: 432,
  fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442, setns: 308, unshare: 272, clone: 56,
  clone3: 435, ioctl: 16, open_by_handle_at: 304, iopl: 172, ioperm: 173, modify_ldt: 154, settimeofday: 164,
  clock_settime: 227, clock_adjtime: 305, adjtimex: 159, syslog: 103, io_uring_setup: 425, io_uring_enter: 426,
  io_uring_register: 427, quotactl: 179, quotactl_fd: 443, lookup_dcookie: 212, uselib: 134, vhangup: 153,
  fanotify_init: 300, nfsservctl: 180, _sysctl: 156, open_tree_attr: 467, memfd_secret: 447, openat2: 437,
  personality: 135, chmod: 90, fchmod: 91, fchmodat: 268, fchmodat2: 452, creat: 85, open: 2, openat: 257,
  mknod: 133, mknodat: 259,
};

const I386: Table = {
  keyctl: 288, add_key: 286, request_key: 287, ptrace: 26, process_vm_readv: 347, process_vm_writev: 348,
  pidfd_getfd: 438, kcmp: 349, perf_event_open: 336, bpf: 357, userfaultfd: 374, kexec_load: 283,
  init_module: 128, finit_module: 350, delete_module: 129, reboot: 88, swapon: 87, swapoff: 115, acct: 51,
  mount: 21, umount: 22, umount2: 52, pivot_root: 217, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433,
  move_mount: 429, open_tree: 428, mount_setattr: 442, setns: 346, unshare: 310, clone: 120, clone3: 435,
  ioctl: 54, open_by_handle_at: 342, iopl: 110, ioperm: 101, modify_ldt: 123, vm86: 166, vm86old: 113,
  settimeofday: 79, stime: 25, clock_settime: 264, clock_settime64: 404, clock_adjtime: 343,
  clock_adjtime64: 405, adjtimex: 124, syslog: 103, io_uring_setup: 425, io_uring_enter: 426,
  io_uring_register: 427, quotactl: 131, quotactl_fd: 443, lookup_dcookie: 253, uselib: 86, vhangup: 111,
  fanotify_init: 338, nfsservctl: 169, _sysctl: 149, open_tree_attr: 467, memfd_secret: 447, openat2: 437,
  personality: 136, chmod: 15, fchmod: 94, fchmodat: 306, fchmodat2: 452, creat: 8, open: 5, openat: 295,
  mknod: 14, mknodat: 297,
};

/** aarch64 uses the generic table (asm-generic/unistd.h) without the 32-bit time calls. */
const AARCH64: Table = {
  keyctl: 219, add_key: 217, request_key: 218, ptrace: 117, process_vm_readv: 270, process_vm_writev: 271,
  pidfd_getfd: 438, kcmp: 272, perf_event_open: 241, bpf: 280, userfaultfd: 282, kexec_load: 104,
  kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106, reboot: 142, swapon: 224,
  swapoff: 225, acct: 89, mount: 40, umount2: 39, pivot_root: 41, fsopen: 430, fsconfig: 431, fsmount: 432,
  fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442, setns: 268, unshare: 97, clone: 220,
  clone3: 435, ioctl: 29, open_by_handle_at: 265, settimeofday: 170, clock_settime: 112, clock_adjtime: 266,
  adjtimex: 171, syslog: 116, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, quotactl: 60,
  quotactl_fd: 443, lookup_dcookie: 18, vhangup: 58, fanotify_init: 262, nfsservctl: 42, open_tree_attr: 467,
  memfd_secret: 447, openat2: 437, personality: 92, fchmod: 52, fchmodat: 53, fchmodat2: 452, openat: 56,
  mknodat: 33,
};

export const SYSCALL_NUMBERS: Readonly<Record<SeccompArch, Table>> = Object.freeze({ x86_64: X86_64, i386: I386, aarch64: AARCH64 });
