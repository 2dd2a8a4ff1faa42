import { readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LABELS, type ContainerEngine } from './container-engine.js';
import { SHARED_DIR_PREFIX } from './session-containers.js';

/**
 * Removes containers that earlier servers on this machine created and left
 * behind (their process is gone), then those servers' session networks.
 * Containers and networks of live servers, and of other machines sharing the
 * engine, are left alone; so are their shared session directories under the
 * temp dir. A shared session's sandbox, network and directory are no
 * server's orphans whatever pid made them: its session record decides
 * (`SessionContainers.end`, `sweepOrphans`). Resolves with how many containers went.
 */
export async function reapDeadInstances(engine: ContainerEngine, hostname: string = os.hostname()): Promise<number> {
  const ours = [`${LABELS.managed}=1`, `${LABELS.hostname}=${hostname}`];
  const dead = (await engine.list(ours)).filter((c) => !isShared(c.labels) && !processAlive(Number(c.labels[LABELS.pid])));
  await Promise.all(dead.map((c) => engine.remove(c.id).catch(() => undefined)));
  const deadNetworks = (await engine.listNetworks(ours)).filter((n) => !isShared(n.labels) && !processAlive(Number(n.labels[LABELS.pid])));
  await Promise.all(deadNetworks.map((n) => engine.removeNetwork(n.id).catch(() => undefined)));
  removeDeadSharedDirs(os.tmpdir());
  const abandoned = (await engine.reapAbandoned?.()) ?? 0;
  return dead.length + abandoned;
}

function isShared(labels: Readonly<Record<string, string>>): boolean {
  return labels[LABELS.shared] === '1';
}

/** Only `dsh-ct-<pid>-` directories carry a pid; a shared session's (`dsh-ss-`) never matches. */
function removeDeadSharedDirs(tmp: string): void {
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return;
  }
  const pattern = new RegExp(`^${SHARED_DIR_PREFIX}(\\d+)-`);
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(path.join(tmp, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
