import { argLowOffset, ARCH_OFFSET, assemble, encode, ENOSYS, EPERM, NR_OFFSET, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, type Instruction } from './seccomp-bpf.js';
import { modeChecks } from './seccomp-mode-checks.js';
import {
  AUDIT_ARCH,
  DENIED_SYSCALLS,
  ENOSYS_SYSCALLS,
  HIGHEST_KNOWN_SYSCALL,
  IOCTL,
  PERSONALITY,
  SYSCALL_NUMBERS,
  X32_SYSCALL_BIT,
  type SeccompArch,
} from './seccomp-syscalls.js';

/** CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET}: flags that make a namespace (the low byte of clone's flags is its exit signal). */
const CLONE_NAMESPACE_FLAGS = 0x20000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** `unshare` also takes CLONE_NEWTIME (0x80), which in `clone` is part of the exit signal. */
const UNSHARE_NAMESPACE_FLAGS = CLONE_NAMESPACE_FLAGS | 0x80;
/** ioctl requests that push input into a terminal: TIOCSTI, TIOCLINUX (its subcommand 2 pastes the selection). */
export const TERMINAL_INJECTION_IOCTLS = Object.freeze([0x5412, 0x541c]);
/** TIOCSETD: switches a terminal's line discipline, which loads kernel code (n_hdlc, n_gsm: a run of exploits) no shell needs. */
export const LINE_DISCIPLINE_IOCTLS = Object.freeze([0x5423]);
/**
 * `personality` arguments allowed: the query (0xffffffff, what `uname -m`
 * and `setarch --list` need) and the plain personas PER_LINUX and
 * PER_LINUX32 (`setarch x86_64`, `linux32`). Any flag (ADDR_NO_RANDOMIZE,
 * READ_IMPLIES_EXEC, ...) weakens the process's own hardening: EPERM.
 */
const ALLOWED_PERSONALITIES = Object.freeze([0xffffffff, 0x0, 0x8]);

const ERRNO_EPERM = SECCOMP_RET_ERRNO | EPERM;
const ERRNO_ENOSYS = SECCOMP_RET_ERRNO | ENOSYS;
const ARCHES: readonly SeccompArch[] = ['x86_64', 'i386', 'aarch64'];

/**
 * The confinement's seccomp program: allow by default up to the highest
 * syscall number it knows, ENOSYS above it (a newer kernel's syscalls stay
 * out until looked at); the syscalls of `DENIED_SYSCALLS` fail with EPERM,
 * `clone`/`unshare` with EPERM when asked for a namespace, `ioctl` with EPERM
 * for TIOCSTI/TIOCLINUX/TIOCSETD, `personality` with EPERM for any flag, a
 * set-id mode or a device node with EPERM (seccomp-mode-checks.ts),
 * `clone3` and `openat2` with ENOSYS. Every ABI a process on x86_64 or
 * aarch64 can use is covered (the native one, i386 on x86_64); the x32 ABI
 * and any other ABI get EPERM for every syscall. Nothing is ever killed.
 */
export function seccompProgram(): Instruction[] {
  const program: Instruction[] = [{ op: 'load', offset: ARCH_OFFSET }];
  for (const arch of ARCHES) program.push({ op: 'jeq', k: AUDIT_ARCH[arch], then: `arch-${arch}`, else: null });
  program.push({ op: 'ret', k: ERRNO_EPERM });
  for (const arch of ARCHES) program.push(...archBlock(arch));
  return program;
}

/** The program as bytes for bwrap's `--seccomp FD`. */
export function seccompFilterBytes(): Buffer {
  return encode(assemble(seccompProgram()));
}

function archBlock(arch: SeccompArch): Instruction[] {
  const table = SYSCALL_NUMBERS[arch];
  const at = (name: string): string => `${arch}-${name}`;
  const block: Instruction[] = [{ op: 'label', name: `arch-${arch}` }, { op: 'load', offset: NR_OFFSET }];
  if (arch === 'x86_64') block.push({ op: 'jge', k: X32_SYSCALL_BIT, then: at('deny'), else: null });
  block.push({ op: 'jge', k: HIGHEST_KNOWN_SYSCALL + 1, then: at('enosys'), else: null });
  for (const name of Object.keys(DENIED_SYSCALLS)) {
    const nr = table[name];
    if (nr !== undefined) block.push({ op: 'jeq', k: nr, then: at('deny'), else: null });
  }
  for (const name of ENOSYS_SYSCALLS) block.push({ op: 'jeq', k: table[name]!, then: at('enosys'), else: null });
  block.push({ op: 'jeq', k: table.clone!, then: at('clone'), else: null });
  block.push({ op: 'jeq', k: table.unshare!, then: at('unshare'), else: null });
  block.push({ op: 'jeq', k: table[IOCTL]!, then: at('ioctl'), else: null });
  block.push({ op: 'jeq', k: table[PERSONALITY]!, then: at('personality'), else: null });
  const modes = modeChecks(table, at);
  block.push(...modes.dispatch);
  block.push({ op: 'ret', k: SECCOMP_RET_ALLOW });
  // Flags are the first argument of both; the namespace bits all lie in its low word.
  for (const [name, flags] of [['clone', CLONE_NAMESPACE_FLAGS], ['unshare', UNSHARE_NAMESPACE_FLAGS]] as const) {
    block.push({ op: 'label', name: at(name) }, { op: 'load', offset: argLowOffset(0) });
    block.push({ op: 'jset', k: flags, then: at('deny'), else: at('allow') });
  }
  // The kernel reads the request as a 32-bit int: the low word is all that counts.
  block.push({ op: 'label', name: at('ioctl') }, { op: 'load', offset: argLowOffset(1) });
  for (const request of [...TERMINAL_INJECTION_IOCTLS, ...LINE_DISCIPLINE_IOCTLS]) block.push({ op: 'jeq', k: request, then: at('deny'), else: null });
  block.push({ op: 'ret', k: SECCOMP_RET_ALLOW });
  // The persona is an unsigned int: the low word again.
  block.push({ op: 'label', name: at('personality') }, { op: 'load', offset: argLowOffset(0) });
  for (const persona of ALLOWED_PERSONALITIES) block.push({ op: 'jeq', k: persona, then: at('allow'), else: null });
  block.push({ op: 'ret', k: ERRNO_EPERM });
  block.push(...modes.checks);
  // Jumps only run forward: the verdicts come last.
  block.push({ op: 'label', name: at('allow') }, { op: 'ret', k: SECCOMP_RET_ALLOW });
  block.push({ op: 'label', name: at('deny') }, { op: 'ret', k: ERRNO_EPERM });
  block.push({ op: 'label', name: at('enosys') }, { op: 'ret', k: ERRNO_ENOSYS });
  return block;
}
