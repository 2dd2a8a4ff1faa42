import os from 'node:os';
import { readRunEnd } from '../exec/engine/detached-task-files.js';
import type { DetachedRun } from '../exec/engine/detached-task.js';
import type { SharedTaskRecords } from './shared-task-records.js';
import { settlementOf } from './task-entry.js';
import type { TaskOutcome, TaskSnapshot } from './task-runtime.js';

// A shared task's snapshot, from its records and its run's files (docs/shared-sessions.md#tasks).

const ID = /^[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)*-\d+$/;

/** `meta.json`: what a task is. */
export interface Meta {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly ownerId: string;
  readonly startedAt: number;
}

/** `run.json`: where its command is; `relay` for a process a replica holds (shared-task-relay.ts). */
export type Run = DetachedRun & { readonly relay?: { readonly hostname: string; readonly pid: number } };

/** The snapshot of a recorded task; undefined for an id that is not one. */
export function snapshotOf(store: SharedTaskRecords, id: string): TaskSnapshot | undefined {
  if (typeof id !== 'string' || !ID.test(id)) return undefined;
  const meta = store.read<Meta>(id, 'meta.json');
  if (meta === undefined) return undefined;
  const base = { id: meta.id, kind: meta.kind, label: meta.label, ownerId: meta.ownerId, startedAt: meta.startedAt };
  const failed = store.read<{ error: string; at: number }>(id, 'failed.json');
  const ended = failed !== undefined ? { outcome: { exitCode: null, signal: null, error: failed.error }, endedAt: failed.at } : endOf(store.read<Run>(id, 'run.json'));
  const killRequested = store.has(id, 'kill.json');
  if (ended === undefined) return Object.freeze({ ...base, status: killRequested ? 'stopping' : 'running' });
  const settlement = settlementOf(ended.outcome, killRequested && failed === undefined);
  return Object.freeze({
    ...base,
    status: settlement.status,
    ...(settlement.detail === undefined ? {} : { detail: settlement.detail }),
    endedAt: ended.endedAt,
    outcome: Object.freeze({ ...ended.outcome }),
  });
}

/** How a run ended: its status file, or, for a task relayed by a replica of this host that is gone, that it was lost with it. */
function endOf(run: Run | undefined): { outcome: TaskOutcome; endedAt: number } | undefined {
  if (run === undefined) return undefined;
  const end = readRunEnd(run);
  if (end !== undefined || run.relay === undefined) return end;
  if (run.relay.hostname !== os.hostname() || isAlive(run.relay.pid)) return undefined;
  return { outcome: { exitCode: null, signal: null, error: 'the server that ran it stopped' }, endedAt: Date.now() };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
