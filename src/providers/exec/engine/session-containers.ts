import { randomUUID } from 'node:crypto';
import { PerSession } from '../../../core/per-session.js';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import { SpillDirectory } from '../shell/spill-directory.js';
import type { ContainerEngine, ContainerState } from './container-engine.js';
import type { ResolvedContainerConfig } from './container-config.js';
import { callStep } from '../../../core/call-scope.js';
import { currentToolCall } from '../../../core/tool-call-context.js';
import { WarmPool } from './warm-pool.js';
import { ChannelSlot } from './channel-slot.js';
import { assertSharedPoolable, endSharedContainers, findRunningShared, removeSharedContainer, sweepSharedContainers, type SharedContainer } from './shared-containers.js';
import { explainEngineError, startSessionContainer, type StartContext } from './session-container-start.js';

/** A session's running container and the host directory it shares at the same path. */
export interface LiveContainer {
  readonly id: string;
  /** Host directory bind-mounted (read-only) at the same path: the session's spill files. */
  readonly dir: string;
  readonly spills: SpillDirectory;
  /** The session's own network (`network: session` with egress), removed after the container. */
  readonly networkId?: string;
  /** Set once the engine reported the container stopped. */
  stopped?: ContainerState;
  /** Settles when the engine reports the container stopped. */
  readonly ended: Promise<ContainerState>;
  /** The one-shot calls' channel into it (`container.channel`), started on the first call. */
  readonly channel?: ChannelSlot;
  /** A shared session's container (made here or adopted) as labelled: letting go of it here removes nothing. */
  readonly shared?: SharedContainer;
}

interface SessionContainerOptions {
  /** Bind-mounted at the same absolute path. */
  readonly workspace?: string;
  readonly workspaceReadOnly: boolean;
  readonly maxRetainedSpillBytes: number;
  readonly keepSpills: boolean;
  /**
   * `serve --shared-sessions` (docs/shared-sessions.md#sandboxes): a
   * session's sandbox outlives this server, is adopted by any server over
   * the same engine, and is removed only by `end` or `sweepOrphans`.
   */
  readonly shared?: boolean;
}

interface Entry {
  live?: LiveContainer;
  creating?: Promise<LiveContainer>;
}

/** Where a session's entry is kept: in its scope (the sessionless calls' in the provider). Released, it holds none. */
interface Holder {
  readonly session: SessionContext | undefined;
  entry?: Entry;
}

/** Why a request made outside every tool call, without a session, is refused rather than run in a shared container. */
export const NO_SESSION =
  'a command for a per-session container came without a session and outside any tool call: pass the calling session in the request (`session: ctx.session`); sessions never share a container';

export { SHARED_DIR_PREFIX, SESSION_BRIDGE_PREFIX } from './session-container-start.js';

/** `[container restarted: …]`, the line the model sees when its container was replaced. */
/** The session label of a pooled container: no session yet (labels cannot change once it runs). */
const POOLED = '';

export const restartNotice = (reason: string): string => `[container restarted: the previous one stopped (${reason})]`;

/**
 * One container per session, created on the session's first call and
 * removed when the session is disposed. A container that stopped (killed
 * from outside, out of memory, …) is replaced on the next call, which tells
 * the session why with `restartNotice`. Shared by the container executor
 * and the container terminal backend, so one session has one container.
 * Each session's container lives in its scope, found by the session object.
 */
export class SessionContainers {
  readonly instanceId = randomUUID();
  /** Each session's holder, in its scope (this provider's: another keeps its own); the open ones reach a provider disposal that comes before theirs. */
  private readonly perSession = new PerSession<Holder, SessionContext>('the session container', {}, (session) => ({ session }), (holder) => this.releaseHolder(holder));
  private readonly sessionless: Holder = { session: undefined };
  private disposing?: Promise<void>;
  /** Containers started ahead for new sessions (`warmPool`), filling from the start. */
  private readonly pool: WarmPool<LiveContainer> | undefined;
  /** What every container of this provider is made from. */
  private readonly startContext: StartContext;

  constructor(
    readonly engine: ContainerEngine,
    readonly config: ResolvedContainerConfig,
    private readonly options: SessionContainerOptions,
  ) {
    assertSharedPoolable(config, options.shared === true);
    const workspace = options.workspace === undefined ? {} : { workspace: options.workspace };
    this.startContext = { engine, config, instanceId: this.instanceId, workspaceReadOnly: options.workspaceReadOnly, ...workspace };
    this.pool = config.warmPool > 0 ? new WarmPool(config.warmPool, () => this.make(POOLED, true), (live) => this.discard(live)) : undefined;
    this.pool?.fill();
  }

  /** The session's running container, created (or replaced) as needed. Rejects with the cause. */
  async acquire(session: SessionContext | undefined): Promise<LiveContainer> {
    if (this.disposing) throw new Error('the container provider is disposed');
    // A retry after the session ended (an exec that found its container gone) must not start one nobody releases.
    if (session?.disposed) throw new Error(`session ${session.id} is disposed`);
    const holder = this.holderOf(session);
    const entry = (holder.entry ??= {});
    if (entry.creating) return entry.creating;
    const previous = entry.live;
    if (previous && !previous.stopped) return previous;
    const current = entry;
    // A step of the call that needed it: its span shows how much of the call was the container's start.
    current.creating = callStep('container.start', () => this.create(session, previous)).finally(() => (current.creating = undefined));
    const live = await current.creating;
    current.live = live;
    // Released while it was being created: `release` discarded what it awaited; say so rather than hand it out.
    if (holder.entry !== current) throw new Error(`session ${session?.id ?? ''} is disposed`);
    return live;
  }

  /**
   * Marks a container stopped (an exec found it gone) so the next `acquire`
   * replaces it. A container being killed may still read as running for a
   * moment after its processes died, so a running one gets `settleMs` to stop.
   */
  async markIfStopped(live: LiveContainer, settleMs = 0): Promise<ContainerState | undefined> {
    if (live.stopped) return live.stopped;
    const state = await this.engine.state(live.id);
    // An engine that cannot be asked is not a stopped container: replacing it would lose a healthy one.
    if (state.unknown === true) return undefined;
    if (!state.running) live.stopped = state;
    else if (settleMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([live.ended, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), settleMs)))]);
      clearTimeout(timer);
      if (ended) live.stopped ??= ended;
    }
    return live.stopped;
  }

  /** By id for embedders: removes the containers of every open session with this id (`''`: the sessionless calls'). */
  async release(key: string): Promise<void> {
    const matching = this.holders().filter((holder) => (holder.session?.id ?? '') === key);
    await Promise.all(matching.map((holder) => this.releaseHolder(holder)));
  }

  dispose(): Promise<void> {
    this.disposing ??= Promise.all([this.pool?.dispose(), ...this.holders().map((holder) => this.releaseHolder(holder))]).then(() => this.engine.dispose?.());
    return this.disposing;
  }

  /** How many pooled containers wait for a session (for tests and the bench). */
  get pooled(): number {
    return this.pool?.readyCount ?? 0;
  }

  /** Whether the session's container has a ready channel for one-shot calls, waiting for one being started (for tests and the bench). */
  async channelReady(session: SessionContext | undefined): Promise<boolean> {
    const live = await this.acquire(session);
    return (await live.channel?.ready()) ?? false;
  }

  /** How many containers are live (for tests and the bench). */
  get size(): number {
    return this.holders().filter(({ entry }) => entry?.live && !entry.live.stopped).length;
  }

  /** The session's holder, made in its scope on its first call (throws once the session is disposed). */
  private holderOf(session: SessionContext | undefined): Holder {
    // Only a call made without a session (`host.call`) shares the sessionless container; a request that lost its session must not.
    if (session === undefined && currentToolCall() === undefined) throw new Error(NO_SESSION);
    if (session === undefined) return this.sessionless;
    return this.perSession.of(session);
  }

  /** The sessionless holder and every open session's. */
  private holders(): Holder[] {
    return [this.sessionless, ...this.perSession.open()];
  }

  /** Removes the holder's container and its shared directory (awaiting one being created). */
  private async releaseHolder(holder: Holder): Promise<void> {
    const entry = holder.entry;
    holder.entry = undefined;
    if (!entry) return;
    const live = entry.live ?? (await entry.creating?.catch(() => undefined));
    // A shared sandbox belongs to its session, not to this server: only this server's channel into it goes.
    if (live?.shared !== undefined) void live.channel?.close();
    else if (live) await this.discard(live);
  }

  private async create(session: SessionContext | undefined, previous: LiveContainer | undefined): Promise<LiveContainer> {
    if (previous) await this.discard(previous);
    if (this.options.shared === true && session !== undefined) return this.createShared(session, previous);
    // A new session's first container may come from the pool; a replacement is made fresh (the pool's may be as old).
    const pooled = previous === undefined && session !== undefined ? this.pool?.take() : undefined;
    if (pooled) return pooled;
    const live = await this.make(session?.id ?? '');
    if (previous?.stopped) session?.notify(restartNotice(previous.stopped.reason ?? 'unknown reason'));
    return live;
  }

  /**
   * A shared session's container: the running one any server made for it
   * (adopted), else a new one, with the restart notice when one had stopped.
   * Two servers that made one at once keep the older and remove the other.
   */
  private async createShared(session: SessionContext, previous: LiveContainer | undefined): Promise<LiveContainer> {
    const found = await findRunningShared(this.engine, session.id, this.options.keepSpills).catch((error: unknown) => {
      throw new Error(`cannot start the session's container: ${explainEngineError(error, this.engine, this.config.image)}`);
    });
    if (found.running) return this.adopted(found.running);
    const made = await this.make(session.id, false, true);
    const oldest = (await findRunningShared(this.engine, session.id, this.options.keepSpills).catch(() => undefined))?.running;
    if (oldest !== undefined && oldest.id !== made.id) {
      await this.discard(made);
      return this.adopted(oldest);
    }
    const stopped = previous?.stopped?.reason ?? found.stoppedReason;
    if (previous?.stopped || stopped !== undefined) session.notify(restartNotice(stopped ?? 'unknown reason'));
    return made;
  }

  /** A running shared container as this server's: its maker's directory and spills, a channel of this server's own. */
  private adopted(container: SharedContainer): LiveContainer {
    const spills = new SpillDirectory(`${path.relative(os.tmpdir(), container.dir)}/spill-`, this.options.maxRetainedSpillBytes);
    const channel = this.channelFor(container.id, container.dir);
    const ended = this.engine.watch?.(container.id) ?? new Promise<ContainerState>(() => undefined);
    const live: LiveContainer = { id: container.id, dir: container.dir, spills, ended, shared: container, ...(channel === undefined ? {} : { channel }) };
    void ended.then((state) => state.unknown === true || (live.stopped ??= state));
    return live;
  }

  /**
   * Ends a shared session's containers from any server, whether or not it
   * serves the session: lets go of its own hold, then every shared container
   * labelled with the id goes (its network, its directory). The session's record is the caller's.
   */
  async end(sessionId: string): Promise<void> {
    const local = this.perSession.open().filter((holder) => holder.session?.id === sessionId);
    await Promise.all(local.map((holder) => this.releaseHolder(holder)));
    await endSharedContainers(this.engine, sessionId, this.options.keepSpills);
  }

  /**
   * The host directory of the session's container without starting one: this
   * server's, else (shared sessions) the running one another server made.
   */
  async sessionDirOf(session: SessionContext): Promise<string | undefined> {
    const live = this.perSession.existing(session)?.entry?.live;
    if (live !== undefined && live.stopped === undefined) return live.dir;
    if (this.options.shared !== true) return undefined;
    const found = await findRunningShared(this.engine, session.id, this.options.keepSpills).catch(() => undefined);
    return found?.running?.dir;
  }

  /** Removes the shared containers of sessions not in `liveSessionIds` made over `graceMs` ago (see `sweepSharedContainers`). */
  sweepOrphans(liveSessionIds: ReadonlySet<string>, graceMs: number): Promise<number> {
    return sweepSharedContainers(this.engine, liveSessionIds, graceMs, this.options.keepSpills);
  }

  /** Makes a container for `sessionId` (`''`: the sessionless calls'; POOLED, `pooled`: the pool's; `detached`: a shared session's). */
  private async make(sessionId: string, pooled = false, detached = false): Promise<LiveContainer> {
    const { id, dir, stopped, networkId, shared } = await startSessionContainer(this.startContext, sessionId, detached);
    // A relative prefix puts the lazily made spill directory inside the shared one.
    const spills = new SpillDirectory(`${path.relative(os.tmpdir(), dir)}/spill-`, this.options.maxRetainedSpillBytes);
    const channel = this.channelFor(id, dir);
    // A pooled container's holder starts now: the session that takes it starts its first call through it.
    if (pooled) channel?.current();
    const optional = { ...(networkId === undefined ? {} : { networkId }), ...(channel === undefined ? {} : { channel }), ...(shared === undefined ? {} : { shared }) };
    const live: LiveContainer = { id, dir, spills, ended: stopped, ...optional };
    void stopped.then((state) => (live.stopped ??= state));
    return live;
  }

  private channelFor(containerId: string, sharedDir: string): ChannelSlot | undefined {
    if (!this.config.channel) return undefined;
    // Each server runs its own holder in a shared session's container, in a directory of its own.
    const channelDir = this.options.shared === true ? { channelDir: `ch-${this.instanceId.slice(0, 8)}` } : {};
    const user = this.config.user === undefined ? {} : { user: this.config.user };
    return new ChannelSlot({ engine: this.engine, containerId, sharedDir, nativeHelper: this.config.channel === true, ...channelDir, ...user });
  }

  private async discard(live: LiveContainer): Promise<void> {
    live.stopped ??= { running: false, reason: 'removed' };
    // Before the directory goes: a holder still starting (or a FIFO batch being made) would refill it under the removal.
    await live.channel?.close();
    if (live.shared !== undefined) return removeSharedContainer(this.engine, live.shared, this.options.keepSpills);
    await this.engine.remove(live.id).catch(() => undefined);
    if (live.networkId !== undefined) await this.engine.removeNetwork(live.networkId).catch(() => undefined);
    // A FIFO batch still being made in the channel's directory can refill it under the removal: retried.
    if (!this.options.keepSpills) rmSync(live.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  }
}

export const SessionContainersToken: ServiceIdentifier<SessionContainers> = Symbol.for('dsh.SessionContainers');
