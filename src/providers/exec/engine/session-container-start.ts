import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serverFiles } from '../../../core/server-files.js';
import type { ResolvedContainerConfig } from './container-config.js';
import { LABELS, type ContainerEngine, type ContainerState } from './container-engine.js';
import { sessionSeccompProfile } from './container-seccomp.js';
import { describeEngineError } from './engine-errors.js';
import { sessionMounts } from './session-mounts.js';
import { TASK_FILES_DIR } from './detached-task.js';
import { sharedLabels, SHARED_SESSION_DIR_PREFIX, type SharedContainer } from './shared-containers.js';

/** Shared session directories are `<tmp>/dsh-ct-<server pid>-XXXXXX`. */
export const SHARED_DIR_PREFIX = 'dsh-ct-';

/** Host interface names of session networks: `dsh-<8 hex>` (a host firewall rule can match `dsh-+`). */
export const SESSION_BRIDGE_PREFIX = 'dsh-';

/** What a session's container is made from besides the container config. */
export interface StartContext {
  readonly engine: ContainerEngine;
  readonly config: ResolvedContainerConfig;
  readonly workspace?: string;
  readonly workspaceReadOnly: boolean;
  /** The server's instance id: the container's name and label carry it. */
  readonly instanceId: string;
}

/** A started session container, its directory and its network. */
interface StartedContainer {
  readonly id: string;
  readonly dir: string;
  readonly stopped: Promise<ContainerState>;
  readonly networkId?: string;
  /** A detached (shared session's) container as its labels say. */
  readonly shared?: SharedContainer;
}

/**
 * Makes the session's shared directory, its network when it needs one, and
 * its container. `detached`: a shared session's (docs/shared-sessions.md#sandboxes),
 * in a `dsh-ss-` directory no pid sweep touches, labelled to be found by any
 * server. Rejects with the cause, having removed what it made.
 */
export async function startSessionContainer(context: StartContext, sessionId: string, detached: boolean): Promise<StartedContainer> {
  const { engine, config } = context;
  // The pid in the name lets `reapDeadInstances` remove the directory of a server that was SIGKILLed; a shared session's outlives it.
  const dir = mkdtempSync(path.join(os.tmpdir(), detached ? SHARED_SESSION_DIR_PREFIX : `${SHARED_DIR_PREFIX}${process.pid}-`));
  // A shared session's background commands write their output where every replica reads it (detached-task.ts).
  // Any user of the sandbox may write there (sticky: not remove another's); the session directory keeps it from the host's other users.
  if (detached) {
    mkdirSync(path.join(dir, TASK_FILES_DIR));
    chmodSync(path.join(dir, TASK_FILES_DIR), 0o1777);
  }
  const mounts = sessionMounts({
    configured: config.mounts,
    sharedDir: dir,
    ...(context.workspace === undefined ? {} : { workspace: context.workspace }),
    workspaceReadOnly: context.workspaceReadOnly,
    protectedPaths: config.protectedPaths,
    hidden: serverFiles(),
    ...(detached ? { writableSubdir: TASK_FILES_DIR } : {}),
  });
  const suffix = randomBytes(4).toString('hex');
  const created = Date.now();
  const name = `dsh-${context.instanceId.slice(0, 8)}-${slug(sessionId)}-${suffix}`;
  const labels = {
    [LABELS.managed]: '1',
    [LABELS.session]: sessionId,
    [LABELS.instance]: context.instanceId,
    [LABELS.hostname]: os.hostname(),
    [LABELS.pid]: String(process.pid),
    ...(detached ? sharedLabels(dir, created) : {}),
  };
  let networkId: string | undefined;
  try {
    networkId = await createNetwork(context, name, labels, suffix);
    const { id, stopped } = await engine.create({
      image: config.image,
      name,
      labels,
      env: config.env,
      mounts,
      readOnlyRootfs: config.readOnlyRootfs,
      network: networkId ?? networkMode(config),
      capabilities: config.capabilities,
      noNewPrivileges: config.noNewPrivileges,
      ...(config.seccomp === 'dsh' ? { seccompProfile: sessionSeccompProfile() } : {}),
      ...(detached ? { detached } : {}),
      ...pick(config, ['memoryBytes', 'nanoCpus', 'pidsLimit', 'user'] as const),
    });
    const labelled = detached ? { shared: { id, sessionId, dir, created, hostname: os.hostname() } } : {};
    return { id, dir, stopped, ...(networkId === undefined ? {} : { networkId }), ...labelled };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (networkId !== undefined) await engine.removeNetwork(networkId).catch(() => undefined);
    throw new Error(`cannot start the session's container: ${explainEngineError(error, engine, config.image)}`);
  }
}

/** An engine failure as the model reads it: a missing image says how to get it. */
export function explainEngineError(error: unknown, engine: ContainerEngine, image: string): string {
  const message = describeEngineError(error, engine.endpoint);
  if (/no such image/i.test(message)) return `image "${image}" is not present on the engine at ${engine.endpoint} (build or pull it first)`;
  return message;
}

/**
 * A session network, when the session's container needs a route out. With
 * `egress: none` there is nothing to route to, so the container gets the
 * engine's `none` network instead: the same reach, without a network to
 * create and remove on every session.
 */
async function createNetwork(context: StartContext, name: string, labels: Record<string, string>, suffix: string): Promise<string | undefined> {
  const { config } = context;
  if (config.network !== 'session' || config.egress === 'none') return undefined;
  return context.engine.createNetwork({ name, labels, egress: config.egress, bridgeName: `${SESSION_BRIDGE_PREFIX}${suffix}` });
}

/** The engine network mode when the session has no network of its own. */
function networkMode(config: ResolvedContainerConfig): string {
  return config.network === 'session' ? 'none' : config.network;
}

function slug(id: string): string {
  return id.replace(/[^a-zA-Z0-9_.-]/g, '').slice(0, 24) || 'anon';
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
