import { lstatSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LABELS, type ContainerEngine } from './container-engine.js';

/*
 * Shared sessions' containers (docs/shared-sessions.md#sandboxes): made
 * `detached`, labelled `dsh-tools.shared=1` with their session, their
 * directory and their creation time, so any server over the same engine
 * finds, adopts and removes them by labels alone. The session's record
 * decides their end, never a server's life.
 */

/** A `dsh-ss-` directory no container names is removed only once this old: a container's start takes seconds, never this long. */
const UNCLAIMED_DIR_MIN_AGE_MS = 10 * 60_000;

/** A shared session's directory is `<tmp>/dsh-ss-XXXXXX`: its session's, whatever server made it (no pid to sweep by). */
export const SHARED_SESSION_DIR_PREFIX = 'dsh-ss-';

/** Why `--shared-sessions` refuses a warm pool (a pooled container's session label is fixed before any session exists). */
export const SHARED_POOL_REFUSED =
  "container.warmPool cannot be used with --shared-sessions: a shared session's container is found by its session label, which a pooled container cannot take once it runs (set warmPool: 0)";

/** Throws at composition when shared sessions meet a warm pool. */
export function assertSharedPoolable(config: { readonly warmPool: number }, shared: boolean): void {
  if (shared && config.warmPool > 0) throw new Error(SHARED_POOL_REFUSED);
}

/** A shared container as the engine lists it. */
export interface SharedContainer {
  readonly id: string;
  readonly sessionId: string;
  /** The session directory on the machine of the server that made it. */
  readonly dir: string;
  /** Milliseconds since the epoch (NaN when the label is missing: never old enough to sweep). */
  readonly created: number;
  /** The host name of the server that made it: only there is its directory. */
  readonly hostname: string;
}

/** The labels that make a container (and its network) shared, besides the ones every container carries. */
export function sharedLabels(dir: string, now: number): Record<string, string> {
  return { [LABELS.shared]: '1', [LABELS.dir]: dir, [LABELS.created]: String(now) };
}

/** The shared containers of `sessionId` (of every session when undefined), oldest first (ties by id: every server orders them alike). */
export async function listSharedContainers(engine: ContainerEngine, sessionId?: string): Promise<SharedContainer[]> {
  const selector = [`${LABELS.managed}=1`, `${LABELS.shared}=1`, ...(sessionId === undefined ? [] : [`${LABELS.session}=${sessionId}`])];
  const found = (await engine.list(selector)).map(
    (entry): SharedContainer => ({
      id: entry.id,
      sessionId: entry.labels[LABELS.session] ?? '',
      dir: entry.labels[LABELS.dir] ?? '',
      created: Number(entry.labels[LABELS.created]),
      hostname: entry.labels[LABELS.hostname] ?? '',
    }),
  );
  // A label value an engine shortened may match another session's: only the whole id counts.
  return found
    .filter((container) => sessionId === undefined || container.sessionId === sessionId)
    .sort((a, b) => (a.created === b.created ? a.id.localeCompare(b.id) : (a.created || Infinity) - (b.created || Infinity)));
}

/**
 * The session's oldest running shared container, if any. Those found
 * stopped on the way are removed; `stoppedReason` says why the first of
 * them stopped (for the restart notice). An engine that cannot tell removes nothing.
 */
export async function findRunningShared(
  engine: ContainerEngine,
  sessionId: string,
  keepDir: boolean,
): Promise<{ readonly running?: SharedContainer; readonly stoppedReason?: string }> {
  let stoppedReason: string | undefined;
  for (const container of await listSharedContainers(engine, sessionId)) {
    const state = await engine.state(container.id);
    if (state.running) return { running: container, ...(stoppedReason === undefined ? {} : { stoppedReason }) };
    if (state.unknown === true) continue;
    stoppedReason ??= state.reason ?? 'unknown reason';
    await removeSharedContainer(engine, container, keepDir);
  }
  return stoppedReason === undefined ? {} : { stoppedReason };
}

/**
 * Removes a shared container: the container, then its session network
 * (once unused), then its directory when it is on this machine (`keepDir`:
 * the spills stay, as `keepSpills` asks). A part already gone is not an error.
 */
export async function removeSharedContainer(engine: ContainerEngine, container: SharedContainer, keepDir: boolean): Promise<void> {
  await engine.remove(container.id).catch(() => undefined);
  const networks = await engine.listNetworks([`${LABELS.managed}=1`, `${LABELS.shared}=1`]).catch(() => []);
  const its = networks.filter((network) => network.labels[LABELS.dir] === container.dir);
  await Promise.all(its.map((network) => engine.removeNetwork(network.id).catch(() => undefined)));
  if (!keepDir && isOwnSharedDir(container)) rmSync(container.dir, { recursive: true, force: true });
}

/** Removes every shared container labelled with the session's id, from any server. */
export async function endSharedContainers(engine: ContainerEngine, sessionId: string, keepDir: boolean): Promise<void> {
  const containers = await listSharedContainers(engine, sessionId);
  await Promise.all(containers.map((container) => removeSharedContainer(engine, container, keepDir)));
}

/**
 * Removes the shared containers, then the shared networks, whose session is
 * not in `live` and that were made more than `graceMs` ago (a new session's
 * container may exist before its record). Resolves with how many containers went.
 */
export async function sweepSharedContainers(engine: ContainerEngine, live: ReadonlySet<string>, graceMs: number, keepDir: boolean): Promise<number> {
  const now = Date.now();
  const orphan = (labels: { readonly sessionId: string; readonly created: number }) => !live.has(labels.sessionId) && now - labels.created > graceMs;
  const containers = (await listSharedContainers(engine)).filter(orphan);
  await Promise.all(containers.map((container) => removeSharedContainer(engine, container, keepDir)));
  // What a removal left, or a start that failed between the network and the container.
  const networks = await engine.listNetworks([`${LABELS.managed}=1`, `${LABELS.shared}=1`]).catch(() => []);
  const left = networks.filter((n) => orphan({ sessionId: n.labels[LABELS.session] ?? '', created: Number(n.labels[LABELS.created]) }));
  await Promise.all(left.map((n) => engine.removeNetwork(n.id).catch(() => undefined)));
  if (!keepDir) removeUnclaimedDirs(new Set((await listSharedContainers(engine)).map((container) => container.dir)), now - Math.max(graceMs, UNCLAIMED_DIR_MIN_AGE_MS));
  return containers.length;
}

/**
 * Removes this machine's `dsh-ss-` directories that no shared container
 * names and that nothing touched since `before`: a container removed
 * outside any server (by hand, by another machine's replica) leaves its
 * directory here. One made for a container still being created is younger
 * than that (at least `UNCLAIMED_DIR_MIN_AGE_MS`, whatever the sweep's grace).
 */
function removeUnclaimedDirs(named: ReadonlySet<string>, before: number): void {
  const tmp = os.tmpdir();
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(SHARED_SESSION_DIR_PREFIX)) continue;
    const dir = path.join(tmp, name);
    if (named.has(dir)) continue;
    try {
      const stat = lstatSync(dir);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.() || stat.mtimeMs > before) continue;
    } catch {
      continue;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Only a `dsh-ss-` directory of this machine is ever removed, whatever a label says. */
function isOwnSharedDir(container: SharedContainer): boolean {
  const tmp = os.tmpdir();
  const name = container.dir.slice(tmp.length + 1);
  return container.hostname === os.hostname() && container.dir.startsWith(`${tmp}/`) && name.startsWith(SHARED_SESSION_DIR_PREFIX) && !name.includes('/');
}
