import { randomBytes } from 'node:crypto';

/**
 * Every process a command starts inherits this variable (unless it rebuilds
 * its environment from scratch), whatever session or process group it moves
 * to: `/proc/<pid>/environ` keeps the environment a process was started with.
 * That finds `setsid`, `setpgid`, `nohup … &`, double-forked and disowned
 * processes without root or cgroups.
 */
export const PROCESS_TAG_VARIABLE = 'DSH_PROCESS_TAG';

/** This server process; every tag starts with it, so a watchdog can find all of them. */
export const INSTANCE_ID = randomBytes(6).toString('hex');

let sequence = 0;

/** A tag no other call of any server shares: `<instance>.<n>`. */
export function newProcessTag(): string {
  sequence += 1;
  return `${INSTANCE_ID}.${sequence}`;
}
