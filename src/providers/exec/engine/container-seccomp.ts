/**
 * The seccomp profile every session container gets by default (`seccomp:
 * dsh`), in the engine's JSON profile format. An allow-list: a syscall not
 * named here fails with EPERM, so a syscall the engine's libseccomp does not
 * know yet (it drops unknown names) is refused rather than let through.
 *
 * Why a profile of our own and not the engine's default: a root container
 * owns the files it creates in the workspace as root on the host, and no
 * capability stops an owner's `chmod u+s`. Only a filter on the mode
 * argument keeps setuid/setgid files out of the host workspace; the engine's
 * API takes one profile per container, so that filter has to be a whole
 * profile. The rest follows the same lines as the engine's default: no
 * mounts, modules, kexec, clock, swap or reboot; no new namespaces, keyrings,
 * BPF, perf events, userfaultfd or io_uring (kernel surface a shell workload
 * does not need).
 */

/** Syscalls allowed with any argument (x86_64 and arm64 names; absent ones are ignored by the engine). */
const ALLOWED = `
read write close stat fstat lstat poll lseek mmap mprotect munmap brk rt_sigaction rt_sigprocmask rt_sigreturn
ioctl pread64 pwrite64 readv writev access pipe select sched_yield mremap msync mincore madvise shmget shmat shmctl
dup dup2 pause nanosleep getitimer alarm setitimer getpid sendfile connect accept sendto recvfrom sendmsg
recvmsg shutdown bind listen getsockname getpeername socketpair setsockopt getsockopt fork vfork execve exit wait4
kill uname semget semop semctl shmdt msgget msgsnd msgrcv msgctl fcntl flock fsync fdatasync truncate ftruncate
getdents getcwd chdir fchdir rename mkdir rmdir link unlink symlink readlink chown fchown lchown umask
gettimeofday getrlimit getrusage sysinfo times ptrace getuid getgid setuid setgid geteuid getegid setpgid getppid
getpgrp setsid setreuid setregid getgroups setgroups setresuid getresuid setresgid getresgid getpgid setfsuid
setfsgid getsid capget capset rt_sigpending rt_sigtimedwait rt_sigqueueinfo rt_sigsuspend sigaltstack utime
statfs fstatfs getpriority setpriority sched_setparam sched_getparam sched_setscheduler sched_getscheduler
sched_get_priority_max sched_get_priority_min sched_rr_get_interval mlock munlock mlockall munlockall prctl
arch_prctl setrlimit chroot sync gettid readahead setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr
listxattr llistxattr flistxattr removexattr lremovexattr fremovexattr tkill time futex sched_setaffinity
sched_getaffinity set_thread_area io_setup io_destroy io_getevents io_submit io_cancel get_thread_area
epoll_create remap_file_pages getdents64 set_tid_address restart_syscall semtimedop fadvise64 timer_create
timer_settime timer_gettime timer_getoverrun timer_delete clock_gettime clock_getres clock_nanosleep exit_group
epoll_wait epoll_ctl tgkill utimes mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr waitid
ioprio_set ioprio_get inotify_init inotify_add_watch inotify_rm_watch mkdirat fchownat futimesat newfstatat
unlinkat renameat linkat symlinkat readlinkat faccessat pselect6 ppoll set_robust_list get_robust_list splice tee
sync_file_range vmsplice utimensat epoll_pwait signalfd timerfd_create eventfd fallocate timerfd_settime
timerfd_gettime accept4 signalfd4 eventfd2 epoll_create1 dup3 pipe2 inotify_init1 preadv pwritev rt_tgsigqueueinfo
recvmmsg fanotify_mark prlimit64 syncfs sendmmsg getcpu process_vm_readv process_vm_writev kcmp sched_setattr
sched_getattr renameat2 seccomp getrandom memfd_create execveat membarrier mlock2 copy_file_range preadv2 pwritev2
pkey_mprotect pkey_alloc pkey_free statx io_pgetevents rseq pidfd_send_signal pidfd_open close_range pidfd_getfd
faccessat2 process_madvise epoll_pwait2 landlock_create_ruleset landlock_add_rule landlock_restrict_self
memfd_secret process_mrelease futex_waitv cachestat futex_wake futex_wait futex_requeue map_shadow_stack mseal
fstatat renameat sync_file_range2 getxattrat listxattrat setxattrat removexattrat
`
  .trim()
  .split(/\s+/);

/** The mode bits that make an executable run as its owner or group. */
const SET_ID_BITS = 0o6000;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const NEW_NAMESPACE_FLAGS = 0x7e020000;
const AF_VSOCK = 40;
const EPERM = 1;
const ENOSYS = 38;

interface Rule {
  readonly names: readonly string[];
  readonly action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_ERRNO';
  readonly errnoRet?: number;
  readonly args?: ReadonlyArray<{ index: number; value: number; valueTwo: number; op: string }>;
}

/** Allowed only when the argument at `index`, masked with `mask`, is zero. */
const allowWhenClear = (names: string[], index: number, mask: number): Rule => ({
  names,
  action: 'SCMP_ACT_ALLOW',
  args: [{ index, value: mask, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }],
});

const RULES: readonly Rule[] = [
  { names: ALLOWED, action: 'SCMP_ACT_ALLOW' },
  // A mode with setuid/setgid bits is refused wherever a mode is given: chmod and every create.
  allowWhenClear(['chmod', 'fchmod', 'creat', 'mknod'], 1, SET_ID_BITS),
  allowWhenClear(['fchmodat', 'fchmodat2', 'mknodat', 'open'], 2, SET_ID_BITS),
  allowWhenClear(['openat'], 3, SET_ID_BITS),
  // openat2 hides its mode in a struct the filter cannot read: ENOSYS makes libc fall back to openat.
  { names: ['openat2'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
  // New namespaces (a user namespace gives back every capability inside it) are refused.
  allowWhenClear(['clone'], 0, NEW_NAMESPACE_FLAGS),
  // clone3 takes its flags in a struct: ENOSYS makes libc fall back to clone, which is checked.
  { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
  // vsock reaches the hypervisor's services, outside every container network.
  { names: ['socket'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: AF_VSOCK, valueTwo: 0, op: 'SCMP_CMP_NE' }] },
  // personality: only the query and the plain personas (Linux, 32-bit Linux for setarch/linux32), no
  // flag (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC...): the same three values the bwrap sandbox allows.
  ...[0xffffffff, 0x0, 0x8].map(
    (persona): Rule => ({ names: ['personality'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: persona, valueTwo: 0, op: 'SCMP_CMP_EQ' }] }),
  ),
];

/**
 * Every ABI the CPU offers a process, each through the rules above (the
 * runtime resolves each name per ABI and leaves out names an ABI lacks):
 * a 32-bit call (int 0x80, x32, arm on arm64) that is not allowed fails with
 * EPERM like any other, as in the bwrap sandbox, instead of meeting the
 * runtime's bad-architecture action, which kills the process with SIGSYS.
 * Naming the architectures also lets the runtime answer ENOSYS (not EPERM)
 * for syscalls newer than the profile, so libc falls back as on an older
 * kernel.
 */
const ARCHITECTURES = [
  { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
  { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
];

/** The profile as the engine's `seccomp=<json>` security option takes it. */
export function sessionSeccompProfile(): string {
  return JSON.stringify({ defaultAction: 'SCMP_ACT_ERRNO', defaultErrnoRet: EPERM, archMap: ARCHITECTURES, syscalls: RULES });
}
