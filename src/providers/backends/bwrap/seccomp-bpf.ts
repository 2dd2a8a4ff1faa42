/**
 * A minimal classic-BPF assembler for seccomp programs: loads of
 * `seccomp_data` words, compare-and-jump to labels, returns. Jumps go forward
 * only (the kernel refuses loops) and must fit the 8-bit offset; `assemble`
 * throws otherwise, so a program too long for its jumps fails at build time.
 */

/** Opcodes (linux/bpf_common.h). */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** `seccomp_data` offsets: nr, arch, then args[i] at 16 + 8i (low word first on little-endian). */
export const NR_OFFSET = 0;
export const ARCH_OFFSET = 4;
export const argLowOffset = (index: number): number => 16 + 8 * index;

export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

export type Instruction =
  | { readonly op: 'load'; readonly offset: number }
  | { readonly op: 'jeq' | 'jge' | 'jset'; readonly k: number; readonly then: string; readonly else: string | null }
  | { readonly op: 'ret'; readonly k: number }
  | { readonly op: 'label'; readonly name: string };

/** One 8-byte `sock_filter`. */
export interface SockFilter {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

const JUMP_CODES = { jeq: JEQ_K, jge: JGE_K, jset: JSET_K } as const;

/** Resolves labels (`else: null` falls through) into `sock_filter`s. */
export function assemble(program: readonly Instruction[]): SockFilter[] {
  const labels = new Map<string, number>();
  let index = 0;
  for (const instruction of program) {
    if (instruction.op !== 'label') index++;
    else if (labels.has(instruction.name)) throw new Error(`seccomp: label ${instruction.name} defined twice`);
    else labels.set(instruction.name, index);
  }
  const out: SockFilter[] = [];
  for (const instruction of program) {
    if (instruction.op === 'label') continue;
    const at = out.length;
    if (instruction.op === 'load') out.push({ code: LD_W_ABS, jt: 0, jf: 0, k: instruction.offset });
    else if (instruction.op === 'ret') out.push({ code: RET_K, jt: 0, jf: 0, k: instruction.k >>> 0 });
    else {
      const jt = offsetTo(labels, instruction.then, at);
      const jf = instruction.else === null ? 0 : offsetTo(labels, instruction.else, at);
      out.push({ code: JUMP_CODES[instruction.op], jt, jf, k: instruction.k >>> 0 });
    }
  }
  if (out.length > 4096) throw new Error(`seccomp: ${out.length} instructions, the kernel takes at most 4096`);
  return out;
}

/** The program as the kernel reads it (`struct sock_filter[]`, little-endian: x86_64, aarch64). */
export function encode(filters: readonly SockFilter[]): Buffer {
  const buffer = Buffer.alloc(filters.length * 8);
  filters.forEach((filter, i) => {
    buffer.writeUInt16LE(filter.code, i * 8);
    buffer.writeUInt8(filter.jt, i * 8 + 2);
    buffer.writeUInt8(filter.jf, i * 8 + 3);
    buffer.writeUInt32LE(filter.k, i * 8 + 4);
  });
  return buffer;
}

function offsetTo(labels: Map<string, number>, label: string, at: number): number {
  const target = labels.get(label);
  if (target === undefined) throw new Error(`seccomp: unknown label ${label}`);
  const offset = target - at - 1;
  if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${label} out of range (${offset})`);
  return offset;
}
