import fs from 'node:fs';

/** The state letter of `pid` (`R`, `S`, `Z`, …); undefined once it is gone (reaped). */
export function processState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return undefined;
  }
}
