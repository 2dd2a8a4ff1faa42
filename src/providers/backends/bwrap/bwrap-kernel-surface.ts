import fs from 'node:fs';

/**
 * Kernel files a confined root process could use against the host although
 * it holds no capability: sysctls (`kernel.core_pattern` runs a program as
 * host root), the SysRq trigger, and the read-only kernel state that helps an
 * exploit or leaks other users' data (keys, kernel addresses, timers, the
 * kernel log, physical page maps).
 */
const READ_ONLY_DIRS = ['/proc/sys', '/proc/fs', '/proc/irq', '/proc/bus', '/proc/driver'];
/** Covered by an empty read-only tmpfs: nothing in them is a shell command's business. */
const MASKED_DIRS = ['/proc/acpi', '/proc/scsi', '/proc/asound', '/sys/firmware', '/sys/kernel/debug', '/sys/kernel/security'];
/** Covered by `/dev/null` (reads give nothing, writes go nowhere that matters: the bind is read-only). */
const MASKED_FILES = [
  '/proc/sysrq-trigger',
  '/proc/kcore',
  '/proc/keys',
  '/proc/key-users',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/latency_stats',
  '/proc/kmsg',
  '/proc/kallsyms',
  '/proc/kpagecount',
  '/proc/kpageflags',
  '/proc/kpagecgroup',
  '/proc/slabinfo',
  '/proc/vmallocinfo',
  '/proc/pagetypeinfo',
  '/proc/iomem',
  '/proc/ioports',
  '/proc/mtrr',
];

/** Every path this module makes read-only or masks (for the tests and the doc). */
export const KERNEL_SURFACE = Object.freeze({ readOnly: READ_ONLY_DIRS, maskedDirs: MASKED_DIRS, maskedFiles: MASKED_FILES });

/**
 * Namespaces of their own for the host name (UTS), SysV IPC and the cgroup
 * view, so `hostname`, `shmget` and `/proc/self/cgroup` touch nothing of the
 * host's. (The keyring has no namespace: the seccomp filter denies it.)
 */
export function namespaceFlags(): string[] {
  return ['--unshare-uts', '--unshare-ipc', '--unshare-cgroup-try'];
}

let present: { readOnly: string[]; maskedDirs: string[]; maskedFiles: string[] } | undefined;

/**
 * The binds that go after `--proc /proc`: `/proc/sys` and its kin re-bound
 * read-only over the fresh procfs (the kernel's `/proc/sys` is the same in
 * every PID namespace), the rest masked. `/sys` is already read-only (it is
 * part of the read-only root). Paths this kernel lacks are left out (bwrap
 * would fail on them); the answer is cached, the kernel does not change.
 */
export function kernelSurfaceFlags(): string[] {
  present ??= {
    readOnly: READ_ONLY_DIRS.filter(exists),
    maskedDirs: MASKED_DIRS.filter(exists),
    maskedFiles: MASKED_FILES.filter(exists),
  };
  const flags: string[] = [];
  for (const dir of present.readOnly) flags.push('--ro-bind', dir, dir);
  for (const dir of present.maskedDirs) flags.push('--tmpfs', dir, '--remount-ro', dir);
  for (const file of present.maskedFiles) flags.push('--ro-bind', '/dev/null', file);
  return flags;
}

function exists(file: string): boolean {
  try {
    fs.statSync(file);
    return true;
  } catch {
    return false;
  }
}
