import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Tiny static x86_64 programs, assembled here, that make one raw syscall
 * and exit with its negated result's low byte: 0 on success, the errno on
 * failure (1 = EPERM, 38 = ENOSYS), 256 - fd for a returned descriptor.
 * `i386` makes the call through `int 0x80`, the 32-bit ABI a 64-bit process
 * can still use (seccomp sees AUDIT_ARCH_I386), so no 32-bit compiler or
 * library is needed; `x86_64` through `syscall`. Strings and byte buffers
 * are placed after the code, below 4 GiB, where a 32-bit pointer reaches.
 */
export type Abi = 'x86_64' | 'i386';
export type Argument = number | string | Buffer;

const BASE = 0x400000;
const CODE_AT = 64 + 56;

/** Registers for arguments 0..5, as `mov r32, imm32` opcodes. */
const ARG_OPCODES: Record<Abi, readonly number[][]> = {
  // ebx, ecx, edx, esi, edi, ebp
  i386: [[0xbb], [0xb9], [0xba], [0xbe], [0xbf], [0xbd]],
  // edi, esi, edx, r10d, r8d, r9d (a 32-bit move zero-extends into the 64-bit register)
  x86_64: [[0xbf], [0xbe], [0xba], [0x41, 0xba], [0x41, 0xb8], [0x41, 0xb9]],
};
const TRAP: Record<Abi, number[]> = { i386: [0xcd, 0x80], x86_64: [0x0f, 0x05] };
/** neg eax; mov edi, eax; mov eax, 60 (exit); syscall. */
const EXIT_WITH_RESULT = [0xf7, 0xd8, 0x89, 0xc7, 0xb8, 60, 0, 0, 0, 0x0f, 0x05];

const imm32 = (value: number): number[] => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0);
  return [...b];
};

/** The ELF image of a program that calls syscall `nr` with `args` through `abi`. */
export function rawSyscallElf(abi: Abi, nr: number, args: readonly Argument[] = []): Buffer {
  if (args.length > 6) throw new Error('at most six syscall arguments');
  const codeLength = 5 + args.reduce<number>((n, _a, i) => n + ARG_OPCODES[abi][i]!.length + 4, 0) + TRAP[abi].length + EXIT_WITH_RESULT.length;
  const data: Buffer[] = [];
  let dataAt = CODE_AT + codeLength;
  const code: number[] = [0xb8, ...imm32(nr)];
  args.forEach((arg, i) => {
    let value: number;
    if (typeof arg === 'number') value = arg;
    else {
      const bytes = typeof arg === 'string' ? Buffer.from(`${arg}\0`) : arg;
      value = BASE + dataAt;
      data.push(bytes);
      dataAt += bytes.length;
    }
    code.push(...ARG_OPCODES[abi][i]!, ...imm32(value));
  });
  code.push(...TRAP[abi], ...EXIT_WITH_RESULT);
  const body = Buffer.concat([Buffer.from(code), ...data]);
  return Buffer.concat([elfHeaders(CODE_AT + body.length), body]);
}

/** Writes the program to `file`, executable. */
export function writeRawSyscall(file: string, abi: Abi, nr: number, args: readonly Argument[] = []): void {
  writeFileSync(file, rawSyscallElf(abi, nr, args));
  chmodSync(file, 0o755);
}

/** The exit status as the errno it stands for (`ok` for 0, `fd` for a descriptor). */
export function outcome(status: number): string {
  if (status === 0) return 'ok';
  return status > 200 ? 'fd' : `errno ${status}`;
}

function elfHeaders(size: number): Buffer {
  const h = Buffer.alloc(CODE_AT);
  h.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0); // ELF, 64-bit, little-endian, version 1, System V
  h.writeUInt16LE(2, 16); // ET_EXEC
  h.writeUInt16LE(0x3e, 18); // EM_X86_64
  h.writeUInt32LE(1, 20);
  h.writeBigUInt64LE(BigInt(BASE + CODE_AT), 24); // entry
  h.writeBigUInt64LE(64n, 32); // program headers right after this header
  h.writeUInt16LE(64, 52); // header size
  h.writeUInt16LE(56, 54); // program header size
  h.writeUInt16LE(1, 56); // one program header
  // PT_LOAD, readable and executable, the whole file at BASE.
  h.writeUInt32LE(1, 64);
  h.writeUInt32LE(5, 68);
  h.writeBigUInt64LE(0n, 72);
  h.writeBigUInt64LE(BigInt(BASE), 80);
  h.writeBigUInt64LE(BigInt(BASE), 88);
  h.writeBigUInt64LE(BigInt(size), 96);
  h.writeBigUInt64LE(BigInt(size), 104);
  h.writeBigUInt64LE(0x1000n, 112);
  return h;
}

/**
 * Whether this kernel takes `int 0x80` from a 64-bit process (probed with
 * i386 sched_yield, which returns 0). Without IA32 emulation (disabled, or a
 * guest such as PVM that has no 32-bit entry) the probe dies of SIGSEGV: the
 * 32-bit ABI is then no route at all, and the suites that use it are skipped
 * under a name that says so.
 */
export const ia32Usable: boolean = (() => {
  if (process.arch !== 'x64') return false;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-ia32-probe-'));
  try {
    writeRawSyscall(path.join(dir, 'yield'), 'i386', 158);
    return spawnSync(path.join(dir, 'yield'), { stdio: 'ignore' }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

export const NEEDS_IA32 = ia32Usable ? '' : ' (skipped: this kernel has no 32-bit syscall entry for int 0x80, so the ABI is no route here)';
