import { randomBytes, randomUUID } from 'node:crypto';
import { PerSession } from '../../../core/per-session.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import { SpillDirectory } from '../shell/spill-directory.js';
import { LABELS, type ContainerEngine, type ContainerState } from './container-engine.js';
import { sessionMounts } from './session-mounts.js';
import { serverFiles } from '../../../core/server-files.js';
import type { ResolvedContainerConfig } from './container-config.js';
import { sessionSeccompProfile } from './container-seccomp.js';
import { describeEngineError } from './engine-errors.js';
import { callStep } from '../../../core/call-scope.js';
import { currentToolCall } from '../../../core/tool-call-context.js';
import { WarmPool } from './warm-pool.js';
import { ChannelSlot } from './channel-slot.js';

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
}

interface SessionContainerOptions {
  /** Bind-mounted at the same absolute path. */
  readonly workspace?: string;
  readonly workspaceReadOnly: boolean;
  readonly maxRetainedSpillBytes: number;
  readonly keepSpills: boolean;
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

/** Shared session directories are `<tmp>/dsh-ct-<server pid>-XXXXXX`. */
export const SHARED_DIR_PREFIX = 'dsh-ct-';

/** Host interface names of session networks: `dsh-<8 hex>` (a host firewall rule can match `dsh-+`). */
export const SESSION_BRIDGE_PREFIX = 'dsh-';

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

  constructor(
    readonly engine: ContainerEngine,
    readonly config: ResolvedContainerConfig,
    private readonly options: SessionContainerOptions,
  ) {
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
    if (live) await this.discard(live);
  }

  private async create(session: SessionContext | undefined, previous: LiveContainer | undefined): Promise<LiveContainer> {
    if (previous) await this.discard(previous);
    // A new session's first container may come from the pool; a replacement is made fresh (the pool's may be as old).
    const pooled = previous === undefined && session !== undefined ? this.pool?.take() : undefined;
    if (pooled) return pooled;
    const live = await this.make(session?.id ?? '');
    if (previous?.stopped) session?.notify(restartNotice(previous.stopped.reason ?? 'unknown reason'));
    return live;
  }

  /** Makes a container for the session `sessionId` (`''`: the sessionless calls'; POOLED, `pooled`: one for the pool). */
  private async make(sessionId: string, pooled = false): Promise<LiveContainer> {
    // The pid in the name lets `reapDeadInstances` remove the directory of a server that was SIGKILLed.
    const dir = mkdtempSync(path.join(os.tmpdir(), `${SHARED_DIR_PREFIX}${process.pid}-`));
    const mounts = sessionMounts({
      configured: this.config.mounts,
      sharedDir: dir,
      ...(this.options.workspace === undefined ? {} : { workspace: this.options.workspace }),
      workspaceReadOnly: this.options.workspaceReadOnly,
      protectedPaths: this.config.protectedPaths,
      hidden: serverFiles(),
    });
    const suffix = randomBytes(4).toString('hex');
    const name = `dsh-${this.instanceId.slice(0, 8)}-${slug(sessionId)}-${suffix}`;
    const labels = {
      [LABELS.managed]: '1',
      [LABELS.session]: sessionId,
      [LABELS.instance]: this.instanceId,
      [LABELS.hostname]: os.hostname(),
      [LABELS.pid]: String(process.pid),
    };
    let id: string;
    let stopped: Promise<ContainerState>;
    let networkId: string | undefined;
    try {
      networkId = await this.createNetwork(name, labels, suffix);
      ({ id, stopped } = await this.engine.create({
        image: this.config.image,
        name,
        labels,
        env: this.config.env,
        mounts,
        readOnlyRootfs: this.config.readOnlyRootfs,
        network: networkId ?? this.networkMode(),
        capabilities: this.config.capabilities,
        noNewPrivileges: this.config.noNewPrivileges,
        ...(this.config.seccomp === 'dsh' ? { seccompProfile: sessionSeccompProfile() } : {}),
        ...pick(this.config, ['memoryBytes', 'nanoCpus', 'pidsLimit', 'user'] as const),
      }));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      if (networkId !== undefined) await this.engine.removeNetwork(networkId).catch(() => undefined);
      throw new Error(`cannot start the session's container: ${this.explain(error)}`);
    }
    // A relative prefix puts the lazily made spill directory inside the shared one.
    const spills = new SpillDirectory(`${path.relative(os.tmpdir(), dir)}/spill-`, this.options.maxRetainedSpillBytes);
    const channel = this.channelFor(id, dir);
    // A pooled container's holder starts now: the session that takes it starts its first call through it.
    if (pooled) channel?.current();
    const optional = { ...(networkId === undefined ? {} : { networkId }), ...(channel === undefined ? {} : { channel }) };
    const live: LiveContainer = { id, dir, spills, ended: stopped, ...optional };
    void stopped.then((state) => (live.stopped ??= state));
    return live;
  }

  private channelFor(containerId: string, sharedDir: string): ChannelSlot | undefined {
    if (!this.config.channel) return undefined;
    return new ChannelSlot({ engine: this.engine, containerId, sharedDir, ...(this.config.user === undefined ? {} : { user: this.config.user }) });
  }

  private async discard(live: LiveContainer): Promise<void> {
    live.stopped ??= { running: false, reason: 'removed' };
    live.channel?.close();
    await this.engine.remove(live.id).catch(() => undefined);
    if (live.networkId !== undefined) await this.engine.removeNetwork(live.networkId).catch(() => undefined);
    if (!this.options.keepSpills) rmSync(live.dir, { recursive: true, force: true });
  }

  /**
   * A session network, when the session's container needs a route out. With
   * `egress: none` there is nothing to route to, so the container gets the
   * engine's `none` network instead: the same reach, without a network to
   * create and remove on every session.
   */
  private async createNetwork(name: string, labels: Record<string, string>, suffix: string): Promise<string | undefined> {
    if (this.config.network !== 'session' || this.config.egress === 'none') return undefined;
    return this.engine.createNetwork({ name, labels, egress: this.config.egress, bridgeName: `${SESSION_BRIDGE_PREFIX}${suffix}` });
  }

  /** The engine network mode when the session has no network of its own. */
  private networkMode(): string {
    return this.config.network === 'session' ? 'none' : this.config.network;
  }

  private explain(error: unknown): string {
    const message = describeEngineError(error, this.engine.endpoint);
    if (/no such image/i.test(message)) {
      return `image "${this.config.image}" is not present on the engine at ${this.engine.endpoint} (build or pull it first)`;
    }
    return message;
  }
}

export const SessionContainersToken: ServiceIdentifier<SessionContainers> = Symbol.for('dsh.SessionContainers');

function slug(id: string): string {
  return id.replace(/[^a-zA-Z0-9_.-]/g, '').slice(0, 24) || 'anon';
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
