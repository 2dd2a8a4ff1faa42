import { argLowOffset, SECCOMP_RET_ALLOW, type Instruction } from './seccomp-bpf.js';
import { MODE_ARGUMENTS } from './seccomp-syscalls.js';

/** S_ISUID | S_ISGID: a file that runs as its owner or group. S_ISVTX (sticky) is harmless and allowed. */
export const SET_ID_BITS = 0o6000;
/** The one S_IFMT bit that S_IFCHR and S_IFBLK share and no other type mknod accepts has (S_IFLNK, which has it too, is refused by the kernel). */
const DEVICE_TYPE_BIT = 0o020000;
/** O_CREAT | __O_TMPFILE (the same on x86, i386 and the generic table): the flags with which an open's mode is used. */
const CREATE_FLAGS = 0x40 | 0x400000;

/**
 * Why a root sandbox needs this: the workspace is bound from the host, so a
 * file a confined root command creates there is root's on the host, and an
 * owner needs no capability for `chmod u+s`. `nosuid` on the bind does not
 * help: the bit is on the inode, for anyone who runs the file from outside.
 * So every syscall that takes a mode is refused (EPERM) when the mode
 * carries S_ISUID or S_ISGID, and mknod also when it makes a character or
 * block device (CAP_MKNOD is dropped too; this holds should it ever not
 * be). The opens are checked only when they create (O_CREAT, O_TMPFILE):
 * otherwise the kernel ignores the mode, and callers pass whatever is in
 * the register. Only the low word of each argument is read: the kernel
 * takes a mode as a 16-bit `umode_t` and flags as an `int`.
 *
 * Returns, for one ABI's table: the jumps to put among the syscall-number
 * tests, and the checks (each ends in a verdict or a jump to `at('allow')`
 * or `at('deny')`) to put after them.
 */
export function modeChecks(table: Readonly<Record<string, number>>, at: (name: string) => string): { dispatch: Instruction[]; checks: Instruction[] } {
  const dispatch: Instruction[] = [];
  const shapes = new Map<string, { mode: number; flags?: number; node?: true }>();
  for (const [name, shape] of Object.entries(MODE_ARGUMENTS)) {
    const nr = table[name];
    if (nr === undefined) continue;
    const label = shapeLabel(shape);
    shapes.set(label, shape);
    // A create-time check ends in the plain check of the same mode argument.
    if (shape.flags !== undefined) shapes.set(shapeLabel({ mode: shape.mode }), { mode: shape.mode });
    dispatch.push({ op: 'jeq', k: nr, then: at(label), else: null });
  }
  // Jumps run forward: create checks before the mode checks they end in.
  const ordered = [...shapes.entries()].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  const checks: Instruction[] = [];
  for (const [label, shape] of ordered) {
    checks.push({ op: 'label', name: at(label) });
    if (shape.flags !== undefined) {
      checks.push({ op: 'load', offset: argLowOffset(shape.flags) });
      checks.push({ op: 'jset', k: CREATE_FLAGS, then: at(shapeLabel({ mode: shape.mode })), else: at('allow') });
      continue;
    }
    checks.push({ op: 'load', offset: argLowOffset(shape.mode) });
    checks.push({ op: 'jset', k: SET_ID_BITS, then: at('deny'), else: null });
    if (shape.node === true) checks.push({ op: 'jset', k: DEVICE_TYPE_BIT, then: at('deny'), else: null });
    checks.push({ op: 'ret', k: SECCOMP_RET_ALLOW });
  }
  return { dispatch, checks };
}

function shapeLabel(shape: { mode: number; flags?: number; node?: true }): string {
  if (shape.flags !== undefined) return `create${shape.flags}-mode${shape.mode}`;
  return shape.node === true ? `node${shape.mode}` : `mode${shape.mode}`;
}

function rank(label: string): number {
  return label.startsWith('create') ? 0 : 1;
}
