import { inject, injectable, optional, preDestroy } from 'inversify';
import type * as PromClient from 'prom-client';
import { messageOf } from '../../core/describe-value.js';
import { lazyModule } from '../../core/lazy-module.js';
import type { SessionContext } from '../../core/tool-contract.js';
import { ScopeKey, scopeOf } from '../../core/session-scope.js';
import { Logger } from '../logging/logger.js';
import { createMetricSet, type MetricSet } from './metric-set.js';

/**
 * prom-client (about 100 ms of start-up): loaded when the metrics are first
 * read (a scrape, the console) or once `MAX_PENDING` updates wait, not when
 * the host starts nor with its first call: a one-shot `dsh-tools call` never
 * reads them, and loading them was 3-4 % of its run.
 */
const promClient = lazyModule<typeof PromClient>(
  () => require('prom-client'),
  () => import('prom-client'),
);

/** Updates made before prom-client is loaded wait here (a few per call), applied in order when it loads. */
type Update = (metrics: MetricSet) => void;

/** Past this many waiting updates prom-client loads without a reader, so the queue stays small. */
export const MAX_PENDING = 256;

/**
 * The host's metrics: a prom-client registry of its own, loaded on first use,
 * plus the counts behind the gauges (open sessions, running background
 * tasks, open persistent shells), kept here as plain numbers.
 */
@injectable()
export class HostMetrics {
  private metrics?: MetricSet;
  private loading?: Promise<MetricSet | undefined>;
  private pending: Update[] = [];
  private sessions = 0;
  private readonly tasks = new Set<string>();
  private readonly shells = new Set<string>();
  private readonly sessionKey = new ScopeKey<string>('the metrics session count');
  private disposed = false;
  /** prom-client could not be loaded: updates are dropped. */
  private unavailable = false;

  constructor(@inject(Logger) @optional() private readonly logger?: Logger) {}

  /** Applies `update` now, or once prom-client is loaded (by a read, or when `MAX_PENDING` updates wait). */
  update(update: Update): void {
    if (this.metrics) return update(this.metrics);
    if (this.disposed || this.unavailable) return;
    this.pending.push(update);
    if (this.pending.length >= MAX_PENDING) void this.load();
  }

  /** The registry (loads prom-client); undefined when it cannot be loaded. */
  async registry(): Promise<PromClient.Registry | undefined> {
    return (await this.load())?.registry;
  }

  /** The metrics in the Prometheus text format. */
  async exposition(): Promise<{ readonly contentType: string; readonly text: string }> {
    const registry = await this.registry();
    if (!registry) throw new Error('metrics are unavailable: prom-client could not be loaded');
    return { contentType: registry.contentType, text: await registry.metrics() };
  }

  sessionOpened(session: SessionContext): void {
    this.sessions++;
    scopeOf(session).get(this.sessionKey, () => session.id, (id) => {
      this.sessions--;
      this.shells.delete(id);
    });
  }

  taskStarted(taskId: string): void {
    this.tasks.add(taskId);
  }

  taskEnded(taskId: string): void {
    this.tasks.delete(taskId);
  }

  shellOpen(sessionId: string, open: boolean): void {
    if (open) this.shells.add(sessionId);
    else this.shells.delete(sessionId);
  }

  /** Whether session `sessionId` has its persistent shell open (the operator console shows it). */
  shellIsOpen(sessionId: string): boolean {
    return this.shells.has(sessionId);
  }

  @preDestroy()
  dispose(): void {
    this.disposed = true;
    this.pending = [];
  }

  private load(): Promise<MetricSet | undefined> {
    this.loading ??= promClient().then(
      (client) => {
        this.metrics = createMetricSet(client, {
          sessionsActive: () => this.sessions,
          backgroundTasksRunning: () => this.tasks.size,
          persistentShellsOpen: () => this.shells.size,
        });
        for (const update of this.pending.splice(0)) update(this.metrics);
        return this.metrics;
      },
      (error: unknown) => {
        this.unavailable = true;
        this.pending = [];
        this.logger?.error(`metrics: cannot load prom-client (${messageOf(error)}); no metrics are recorded`);
        return undefined;
      },
    );
    return this.loading;
  }
}
