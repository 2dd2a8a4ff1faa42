import { existsSync, readFileSync } from 'node:fs';
import { assemble, encode, type SockFilter } from '../../../../src/providers/backends/bwrap/seccomp-bpf.js';
import { LINE_DISCIPLINE_IOCTLS, seccompFilterBytes, seccompProgram, TERMINAL_INJECTION_IOCTLS } from '../../../../src/providers/backends/bwrap/seccomp-filter.js';
import { AUDIT_ARCH, DENIED_SYSCALLS, HIGHEST_KNOWN_SYSCALL, MODE_ARGUMENTS, SYSCALL_NUMBERS, X32_SYSCALL_BIT, type SeccompArch } from '../../../../src/providers/backends/bwrap/seccomp-syscalls.js';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;

/** Runs a classic-BPF seccomp program on one `seccomp_data` (args as 32-bit low words; the high words are 0). */
function run(program: readonly SockFilter[], arch: number, nr: number, args: number[] = []): number {
  const word = (offset: number): number => {
    if (offset === 0) return nr >>> 0;
    if (offset === 4) return arch >>> 0;
    const index = (offset - 16) / 8;
    return Number.isInteger(index) ? (args[index] ?? 0) >>> 0 : 0;
  };
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) acc = word(k);
    else if (code === 0x06) return k;
    else {
      const taken = code === 0x15 ? acc === k : code === 0x35 ? acc >= k : code === 0x45 ? (acc & k) !== 0 : undefined;
      if (taken === undefined) throw new Error(`unexpected opcode ${code}`);
      pc += taken ? jt : jf;
    }
  }
  throw new Error('fell off the end of the program');
}

describe('the generated seccomp filter', () => {
  const program = assemble(seccompProgram());
  const arches = Object.keys(SYSCALL_NUMBERS) as SeccompArch[];

  it.each(arches)('%s: every denied syscall the ABI has returns EPERM; read, write, execve, fork return ALLOW', (arch) => {
    const table = SYSCALL_NUMBERS[arch];
    for (const name of Object.keys(DENIED_SYSCALLS)) {
      if (table[name] !== undefined) expect([name, run(program, AUDIT_ARCH[arch], table[name]!)]).toEqual([name, EPERM]);
    }
    const harmless = { x86_64: [0, 1, 59, 57, 39], i386: [3, 4, 11, 2, 20], aarch64: [63, 64, 221, 172] }[arch];
    for (const nr of harmless) expect(run(program, AUDIT_ARCH[arch], nr)).toBe(ALLOW);
  });

  it.each(arches)('%s: clone and unshare fail only with namespace flags; clone3 says ENOSYS; ioctl fails only for TIOCSTI/TIOCLINUX/TIOCSETD', (arch) => {
    const { clone, unshare, clone3, ioctl } = SYSCALL_NUMBERS[arch] as Record<string, number>;
    const a = AUDIT_ARCH[arch];
    // fork-like clone (SIGCHLD | CLONE_CHILD_SETTID…), threads (CLONE_VM|CLONE_THREAD…): allowed.
    expect(run(program, a, clone!, [0x01200011])).toBe(ALLOW);
    expect(run(program, a, clone!, [0x003d0f00])).toBe(ALLOW);
    for (const flag of [0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000]) {
      expect(run(program, a, clone!, [0x11 | flag])).toBe(EPERM);
      expect(run(program, a, unshare!, [flag])).toBe(EPERM);
    }
    expect(run(program, a, unshare!, [0x80])).toBe(EPERM);
    expect(run(program, a, unshare!, [0x400])).toBe(ALLOW);
    expect(run(program, a, clone3!, [0, 88])).toBe(ENOSYS);
    for (const request of [...TERMINAL_INJECTION_IOCTLS, ...LINE_DISCIPLINE_IOCTLS]) expect(run(program, a, ioctl!, [1, request])).toBe(EPERM);
    // TCGETS, TIOCGWINSZ, FIONREAD: what shells and tools use every day.
    for (const request of [0x5401, 0x5413, 0x541b]) expect(run(program, a, ioctl!, [1, request])).toBe(ALLOW);
  });

  it.each(arches)('%s: a set-id mode is refused in every mode-taking syscall, a device node in mknod; sticky, plain modes and non-creating opens pass', (arch) => {
    const a = AUDIT_ARCH[arch];
    const table = SYSCALL_NUMBERS[arch];
    const present = Object.entries(MODE_ARGUMENTS).filter(([name]) => table[name] !== undefined);
    expect(present.map(([name]) => name)).toEqual(expect.arrayContaining(['fchmod', 'fchmodat', 'fchmodat2', 'openat', 'mknodat']));
    for (const [name, shape] of present) {
      const call = (mode: number, flags = 0x41 /* O_WRONLY|O_CREAT */): number => {
        const args = [3, 3, 3, 3];
        args[shape.mode] = mode;
        if (shape.flags !== undefined) args[shape.flags] = flags;
        return run(program, a, table[name]!, args);
      };
      for (const mode of [0o4755, 0o2755, 0o6755, 0o4000, 0o2000, 0o104755]) expect([name, mode.toString(8), call(mode)]).toEqual([name, mode.toString(8), EPERM]);
      for (const mode of [0o755, 0o644, 0o1777, 0o100644, 0]) expect([name, mode.toString(8), call(mode)]).toEqual([name, mode.toString(8), ALLOW]);
      if (shape.flags !== undefined) {
        expect(call(0o4755, 0x410002 /* O_TMPFILE|O_RDWR */)).toBe(EPERM);
        expect(call(0o4755, 0x0 /* O_RDONLY: the mode is ignored */)).toBe(ALLOW);
      }
      if (shape.node === true) {
        for (const type of [0o020000, 0o060000]) expect([name, type.toString(8), call(type | 0o600)]).toEqual([name, type.toString(8), EPERM]);
        for (const type of [0o010000, 0o140000, 0o100000]) expect([name, type.toString(8), call(type | 0o600)]).toEqual([name, type.toString(8), ALLOW]);
      }
    }
    expect(run(program, a, table.openat2!, [3, 0, 0, 24])).toBe(ENOSYS);
  });

  it.each(arches)('%s: personality only asks or sets a plain persona; open_tree_attr, memfd_secret and syscalls above the known ones are refused', (arch) => {
    const a = AUDIT_ARCH[arch];
    const table = SYSCALL_NUMBERS[arch];
    for (const persona of [0xffffffff, 0, 8]) expect(run(program, a, table.personality!, [persona])).toBe(ALLOW);
    for (const persona of [0x0040000 /* ADDR_NO_RANDOMIZE */, 0x0400000 /* READ_IMPLIES_EXEC */, 0x20000, 0x0040008]) {
      expect(run(program, a, table.personality!, [persona])).toBe(EPERM);
    }
    expect(run(program, a, table.open_tree_attr!, [])).toBe(EPERM);
    expect(run(program, a, table.memfd_secret!, [])).toBe(EPERM);
    expect(run(program, a, HIGHEST_KNOWN_SYSCALL)).toBe(ALLOW);
    for (const nr of [HIGHEST_KNOWN_SYSCALL + 1, 500, 1000, 0x3fffffff]) expect(run(program, a, nr)).toBe(ENOSYS);
  });

  it('the x32 ABI and unknown ABIs get EPERM for everything, never a kill', () => {
    expect(run(program, AUDIT_ARCH.x86_64, X32_SYSCALL_BIT | 0)).toBe(EPERM);
    expect(run(program, AUDIT_ARCH.x86_64, X32_SYSCALL_BIT | 250)).toBe(EPERM);
    expect(run(program, 0x40000028 /* ARM */, 3)).toBe(EPERM);
    for (const filter of program) if (filter.code === 0x06) expect([ALLOW, EPERM, ENOSYS]).toContain(filter.k);
  });

  it('encodes 8 bytes per instruction, little-endian, as the kernel reads struct sock_filter', () => {
    const bytes = seccompFilterBytes();
    expect(bytes.length).toBe(program.length * 8);
    expect(bytes.readUInt16LE(0)).toBe(0x20);
    expect(bytes.readUInt32LE(4)).toBe(4);
    expect(encode([{ code: 0x15, jt: 2, jf: 3, k: 0xc000003e }]).toString('hex')).toBe('150002033e0000c0');
  });

  it('refuses backward jumps, unknown labels and jumps beyond 255', () => {
    expect(() => assemble([{ op: 'label', name: 'a' }, { op: 'jeq', k: 1, then: 'a', else: null }, { op: 'ret', k: 0 }])).toThrow(/out of range/);
    expect(() => assemble([{ op: 'jeq', k: 1, then: 'nowhere', else: null }])).toThrow(/unknown label/);
    const far = [{ op: 'jeq', k: 1, then: 'end', else: null } as const, ...Array.from({ length: 300 }, () => ({ op: 'ret', k: 0 }) as const), { op: 'label', name: 'end' } as const, { op: 'ret', k: 0 } as const];
    expect(() => assemble(far)).toThrow(/out of range/);
  });

  const headers = {
    x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h',
    i386: '/usr/include/x86_64-linux-gnu/asm/unistd_32.h',
    aarch64: '/usr/include/asm-generic/unistd.h',
  } as const;
  const haveHeaders = Object.values(headers).every((file) => existsSync(file));
  (haveHeaders ? it : it.skip)(`the syscall numbers match the kernel headers${haveHeaders ? '' : ' (skipped: linux-libc-dev headers not installed)'}`, () => {
    for (const arch of arches) {
      const text = readFileSync(headers[arch], 'utf8');
      const newest = Math.max(...[...text.matchAll(/#define __NR(?:3264)?_\w+\s+(\d+)\b/g)].map((m) => Number(m[1])));
      for (const [name, nr] of Object.entries(SYSCALL_NUMBERS[arch])) {
        const match = new RegExp(`#define __NR(?:3264)?_${name}\\s+(\\d+)\\b`).exec(text);
        // A syscall newer than the installed headers must at least lie beyond every number they know.
        if (match === null && nr > newest) continue;
        expect([arch, name, match ? Number(match[1]) : undefined]).toEqual([arch, name, nr]);
      }
    }
  });
});
