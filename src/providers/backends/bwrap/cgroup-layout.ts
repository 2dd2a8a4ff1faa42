import fs from 'node:fs';
import path from 'node:path';

/** Where this process may make child cgroups for one controller, and in which cgroup version. */
export interface ControllerDir {
  readonly version: 1 | 2;
  /** The server's own cgroup in that hierarchy (children go here). */
  readonly dir: string;
}

/** Controllers the limits use; absent when this machine gives no writable place for them. */
export interface CgroupLayout {
  readonly pids?: ControllerDir;
  readonly memory?: ControllerDir;
}

/** The files the detection reads (a fake tree in unit tests). */
export interface CgroupSources {
  readonly mountinfo: string;
  readonly ownCgroups: string;
  /** True when `dir` exists and this process may create children in it. */
  writable(dir: string): boolean;
  /** The text of a file, undefined when unreadable. */
  read(file: string): string | undefined;
}

function hostCgroupSources(): CgroupSources {
  return {
    mountinfo: readText('/proc/self/mountinfo') ?? '',
    ownCgroups: readText('/proc/self/cgroup') ?? '',
    writable: (dir) => {
      try {
        fs.accessSync(dir, fs.constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
    read: readText,
  };
}

/**
 * Finds, per controller, the server's own cgroup when it may hold children
 * with that controller: cgroup v1 when the controller's hierarchy is mounted
 * and writable (root), else cgroup v2 when the server's cgroup already
 * enables the controller for its children (a delegated subtree, or the root
 * of a container's cgroup namespace).
 */
export function detectCgroupLayout(sources: CgroupSources = hostCgroupSources()): CgroupLayout {
  const mounts = parseMounts(sources.mountinfo);
  const own = parseOwnCgroups(sources.ownCgroups);
  const find = (controller: 'pids' | 'memory'): ControllerDir | undefined => {
    const v1 = mounts.find((mount) => mount.type === 'cgroup' && mount.options.includes(controller));
    const v1Path = own.get(controller);
    if (v1 && v1Path !== undefined) {
      const dir = path.resolve(v1.point, `.${v1Path}`);
      if (sources.writable(dir)) return { version: 1, dir };
    }
    const v2 = mounts.find((mount) => mount.type === 'cgroup2');
    const v2Path = own.get('');
    if (v2 && v2Path !== undefined) {
      const dir = path.resolve(v2.point, `.${v2Path}`);
      const enabled = (sources.read(path.join(dir, 'cgroup.subtree_control')) ?? '').split(/\s+/);
      if (enabled.includes(controller) && sources.writable(dir)) return { version: 2, dir };
    }
    return undefined;
  };
  const pids = find('pids');
  const memory = find('memory');
  return { ...(pids ? { pids } : {}), ...(memory ? { memory } : {}) };
}

interface Mount {
  readonly point: string;
  readonly type: string;
  readonly options: string[];
}

/** mountinfo: `id parent dev root point opts [tags] - type source superopts`. */
function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const point = left.split(' ')[4];
    const [type, , superOptions] = right.split(' ');
    if (point === undefined || type === undefined) continue;
    mounts.push({ point: unescapeMount(point), type, options: (superOptions ?? '').split(',') });
  }
  return mounts;
}

/** /proc/self/cgroup: `id:controllers:path`; v2's line has no controllers (key ''). */
function parseOwnCgroups(text: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of match[1]!.split(',')) own.set(controller, match[2]!);
  }
  return own;
}

function unescapeMount(point: string): string {
  return point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
