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

/**
 * A tag no other call of any server shares: `<instance>.<random>`. Random,
 * not a counter: a command knows its own tag, and with a counter it could
 * start a process carrying the next call's, which that call's reaper would
 * then kill and report as that call's leftover.
 */
export function newProcessTag(): string {
  return `${INSTANCE_ID}.${randomBytes(8).toString('hex')}`;
}
