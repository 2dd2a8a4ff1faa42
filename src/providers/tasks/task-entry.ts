import type { SessionContext } from '../../core/tool-contract.js';
import type { TaskOutcome, TaskProcess, TaskSnapshot, TaskStatus } from './task-runtime.js';

/** The terminal status and detail a settlement maps to. */
interface Settlement {
  readonly status: Exclude<TaskStatus, 'running' | 'stopping'>;
  readonly detail?: string;
}

/**
 * Maps how a process ended to a task's terminal status. `cancelled` is true
 * only when our own kill reached a still-running process, so a process that
 * exited on its own first keeps its natural status (first-wins).
 */
export function settlementOf(outcome: TaskOutcome, cancelled: boolean): Settlement {
  if (outcome.error !== undefined) return { status: 'failed', detail: `error: ${outcome.error}` };
  if (cancelled) {
    if (outcome.signal) return { status: 'killed', detail: `signal: ${outcome.signal}` };
    if (outcome.exitCode !== null) return { status: 'killed', detail: `exit code: ${outcome.exitCode}` };
    return { status: 'killed' };
  }
  if (outcome.signal) return { status: 'failed', detail: `signal: ${outcome.signal}` };
  if (outcome.exitCode === 0) return { status: 'completed', detail: 'exit code: 0' };
  if (outcome.exitCode !== null) return { status: 'failed', detail: `exit code: ${outcome.exitCode}` };
  return { status: 'failed', detail: 'exit status unknown' };
}

/**
 * Mutable state of one task inside the runtime. Only the runtime mutates it;
 * everything handed out is a frozen snapshot.
 */
export class TaskEntry {
  status: TaskStatus = 'running';
  detail?: string;
  endedAt?: number;
  outcome?: TaskOutcome;
  /** Set once the producer resolved; dropped after the final output was read, to free its buffers. */
  process?: TaskProcess;
  /** The final output was read: the model has everything this task will ever say. */
  collected = false;
  /** Cancellation was requested (by the model or by a disposal). */
  cancelRequested = false;
  /** The model asked for the kill, so it already knows this task's fate. */
  killedByModel = false;
  killReason?: string;
  /** Our kill call; resolves true when it reached a running process. */
  killing?: Promise<boolean>;
  /** Pending waits; each is called once at settlement. */
  readonly waiters = new Set<() => void>();
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;

  constructor(
    readonly id: string,
    readonly kind: string,
    readonly label: string,
    readonly owner: SessionContext | undefined,
    readonly startedAt: number,
  ) {
    this.settled = new Promise<void>((resolve) => {
      this.resolveSettled = resolve;
    });
  }

  get ownerId(): string | undefined {
    return this.owner?.id;
  }

  /** Running or stopping: counts against admission and can still settle. */
  get live(): boolean {
    return this.status === 'running' || this.status === 'stopping';
  }

  /** Records the terminal state once; returns false when already settled. */
  finish(outcome: TaskOutcome, settlement: Settlement, endedAt: number): boolean {
    if (!this.live) return false;
    this.status = settlement.status;
    this.detail = settlement.detail;
    this.outcome = Object.freeze({ ...outcome });
    this.endedAt = endedAt;
    this.resolveSettled();
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
    return true;
  }

  snapshot(): TaskSnapshot {
    return Object.freeze({
      id: this.id,
      kind: this.kind,
      label: this.label,
      ...(this.ownerId !== undefined && { ownerId: this.ownerId }),
      status: this.status,
      ...(this.detail !== undefined && { detail: this.detail }),
      startedAt: this.startedAt,
      ...(this.endedAt !== undefined && { endedAt: this.endedAt }),
      ...(this.outcome !== undefined && { outcome: this.outcome }),
    });
  }
}
