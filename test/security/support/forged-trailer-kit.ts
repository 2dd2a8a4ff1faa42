// Commands that try to forge the namespace reaper's leftover count.

/** Every 16-hex-digit word of the reaper's argv: the old trailer token was one of them (`/proc/$PPID/cmdline`). */
const TOKEN_FROM_CMDLINE = `t=$(tr '\\0' '\\n' </proc/$PPID/cmdline | grep -xE '[0-9a-f]{16}' | head -n 1)`;

/** The forged count. */
export const FORGED = 424242;

/** The old stderr trailer with the token read from the reaper's argv. */
export const PRINT_TRAILER_WITH_TOKEN = `${TOKEN_FROM_CMDLINE}; printf '\\037dsh-left:%s:${FORGED}\\037' "$t" >&2`;

/** Python: for each descriptor of the reaper (argv 1), take it with pidfd_getfd (syscall 438) and write the old trailer (standard streams) or a bare record (any other) into it. */
const PIDFD_GETFD_WRITER = [
  'import os, sys, ctypes',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'parent = int(sys.argv[1])',
  'token = sys.argv[2] if len(sys.argv) > 2 else ""',
  `trailer = ("\\x1fdsh-left:%s:${FORGED}\\x1f" % token).encode()`,
  'pidfd = os.pidfd_open(parent)',
  'for name in os.listdir("/proc/%d/fd" % parent):',
  '    fd = libc.syscall(438, pidfd, int(name), 0)',
  '    if fd >= 0:',
  // The old trailer on the standard streams, a bare record on any other (a report channel).
  '        try: os.write(fd, trailer if int(name) <= 2 else b"' + String(FORGED) + '\\n")',
  '        except OSError: pass',
].join('\n');

/**
 * Writes a trailer and a bare record into every descriptor of the reaper
 * (its parent), first by opening /proc/$PPID/fd/N, then by taking the
 * descriptor with pidfd_getfd (same uid, no Yama here).
 */
export const WRITE_INTO_REAPER_DESCRIPTORS =
  `${TOKEN_FROM_CMDLINE}; for f in /proc/$PPID/fd/*; do printf '\\037dsh-left:%s:${FORGED}\\037' "$t" >"$f"; printf '${FORGED}\\n' >"$f"; done 2>/dev/null; ` +
  `/usr/bin/python3 -c ${shellQuote(PIDFD_GETFD_WRITER)} "$PPID" "$t" 2>/dev/null; echo tried`;

/** Prints the trailer, then kills the reaper so that no genuine report can follow. */
export const PRINT_TRAILER_THEN_KILL_REAPER = `${PRINT_TRAILER_WITH_TOKEN}; kill -9 $PPID`;

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
