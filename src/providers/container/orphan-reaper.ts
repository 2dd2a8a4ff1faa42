import os from 'node:os';
import { LABELS, type ContainerEngine } from './container-engine.js';

/**
 * Removes containers that earlier servers on this machine created and left
 * behind (their process is gone). Containers of live servers, and of other
 * machines sharing the engine, are left alone. Resolves with how many went.
 */
export async function reapDeadInstances(engine: ContainerEngine, hostname: string = os.hostname()): Promise<number> {
  const found = await engine.list([`${LABELS.managed}=1`, `${LABELS.hostname}=${hostname}`]);
  const dead = found.filter((c) => !processAlive(Number(c.labels[LABELS.pid])));
  await Promise.all(dead.map((c) => engine.remove(c.id).catch(() => undefined)));
  return dead.length;
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
