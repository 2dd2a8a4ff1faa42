import fs from 'node:fs';
import path from 'node:path';
import { detectCgroupLayout, type CgroupLayout, type ControllerDir } from './cgroup-layout.js';
import { sizeInBytes, type ResourceLimits } from './resource-limits.js';
import type { CommandLimits, ResourceLimitHit } from '../../exec/process/command-confinement.js';

/** A group left to `releaseWhenEmpty` is collected only after this long (its first process must have joined by then). */
const UNOWNED_GRACE_MS = 10_000;
/** Directory names: the server's pid tells a later server whose groups are stale. */
const GROUP_NAME = /^dsh-sandbox-(\d+)-\d+$/;
const RELEASE_TRIES = 50;
const RELEASE_PAUSE_MS = 20;

/**
 * Makes a cgroup per call under the server's own cgroup (see
 * cgroup-layout.ts) with `pids.max` and the memory limit, and removes it
 * when the call ends, at `dispose()`, or — for groups a killed server left
 * behind — at the first group the next server makes.
 */
export class CgroupLimiter {
  private readonly layout: CgroupLayout;
  private readonly live = new Set<CallGroup>();
  private sequence = 0;
  private swept = false;

  constructor(
    private readonly limits: ResourceLimits,
    layout: CgroupLayout = detectCgroupLayout(),
  ) {
    this.layout = layout;
  }

  /** The limits the cgroups enforce; the others fall back to rlimits. */
  get enforces(): { processes: boolean; memory: boolean } {
    return { processes: this.layout.pids !== undefined, memory: this.layout.memory !== undefined };
  }

  /** A fresh group, or undefined when this machine offers no cgroup (or making one failed). */
  create(): CommandLimits | undefined {
    const controllers = this.controllers();
    if (controllers.length === 0) return undefined;
    for (const group of this.live) if (group.idle()) void group.release();
    if (!this.swept) {
      this.swept = true;
      for (const { controller } of controllers) sweepStale(controller.dir);
    }
    this.sequence += 1;
    const name = `dsh-sandbox-${process.pid}-${this.sequence}`;
    const made: string[] = [];
    try {
      const dirs = new Map<string, ControllerDir & { kinds: Set<'pids' | 'memory'> }>();
      for (const { kind, controller } of controllers) {
        const entry = dirs.get(controller.dir) ?? { ...controller, kinds: new Set() };
        entry.kinds.add(kind);
        dirs.set(controller.dir, entry);
      }
      const parts: GroupPart[] = [];
      for (const entry of dirs.values()) {
        const dir = path.join(entry.dir, name);
        fs.mkdirSync(dir);
        made.push(dir);
        parts.push({ dir, version: entry.version, kinds: entry.kinds });
        this.applyLimits(dir, entry.version, entry.kinds);
      }
      const group = new CallGroup(parts, this.limits, () => this.live.delete(group));
      this.live.add(group);
      return group;
    } catch {
      for (const dir of made) removeDir(dir);
      return undefined;
    }
  }

  /** Releases every group still held. */
  async dispose(): Promise<void> {
    await Promise.allSettled([...this.live].map((group) => group.release()));
  }

  private controllers(): { kind: 'pids' | 'memory'; controller: ControllerDir }[] {
    const found: { kind: 'pids' | 'memory'; controller: ControllerDir }[] = [];
    if (this.layout.pids) found.push({ kind: 'pids', controller: this.layout.pids });
    if (this.layout.memory) found.push({ kind: 'memory', controller: this.layout.memory });
    return found;
  }

  private applyLimits(dir: string, version: 1 | 2, kinds: Set<'pids' | 'memory'>): void {
    if (kinds.has('pids')) fs.writeFileSync(path.join(dir, 'pids.max'), String(this.limits.processes));
    if (!kinds.has('memory')) return;
    const bytes = String(sizeInBytes(this.limits.memory));
    if (version === 2) {
      fs.writeFileSync(path.join(dir, 'memory.max'), bytes);
      // Without this, a group at its limit swaps instead of failing (and slows the host with it).
      writeIfPresent(path.join(dir, 'memory.swap.max'), '0');
    } else {
      fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), bytes);
      writeIfPresent(path.join(dir, 'memory.memsw.limit_in_bytes'), bytes);
    }
  }
}

interface GroupPart {
  readonly dir: string;
  readonly version: 1 | 2;
  readonly kinds: ReadonlySet<'pids' | 'memory'>;
}

class CallGroup implements CommandLimits {
  readonly procsFiles: string[];
  readonly covers: { readonly processes: boolean; readonly memory: boolean };
  private seen = { processes: 0, memory: 0 };
  private releasing: Promise<void> | undefined;
  private unownedSince: number | undefined;
  private readonly createdAt = Date.now();

  constructor(
    private readonly parts: readonly GroupPart[],
    private readonly limits: ResourceLimits,
    private readonly forget: () => void,
  ) {
    this.procsFiles = parts.map((part) => path.join(part.dir, 'cgroup.procs'));
    this.covers = { processes: parts.some((part) => part.kinds.has('pids')), memory: parts.some((part) => part.kinds.has('memory')) };
  }

  takeReached(): ResourceLimitHit[] {
    const now = { processes: 0, memory: 0 };
    for (const part of this.parts) {
      if (part.kinds.has('pids')) now.processes = counter(path.join(part.dir, 'pids.events'), 'max');
      if (part.kinds.has('memory')) {
        const file = part.version === 2 ? 'memory.events' : 'memory.oom_control';
        now.memory = counter(path.join(part.dir, file), 'oom_kill');
      }
    }
    const hits: ResourceLimitHit[] = [];
    if (now.processes > this.seen.processes) hits.push({ kind: 'processes', limit: String(this.limits.processes) });
    if (now.memory > this.seen.memory) hits.push({ kind: 'memory', limit: this.limits.memory });
    this.seen = now;
    return hits;
  }

  releaseWhenEmpty(): void {
    this.unownedSince ??= Date.now();
  }

  own(): void {
    this.unownedSince = undefined;
  }

  /** Left unowned, old enough, and no process in it. */
  idle(): boolean {
    if (this.unownedSince === undefined || Date.now() - this.createdAt < UNOWNED_GRACE_MS) return false;
    return this.procsFiles.every((file) => {
      try {
        return fs.readFileSync(file, 'utf8').trim() === '';
      } catch {
        return true;
      }
    });
  }

  release(): Promise<void> {
    this.releasing ??= (async () => {
      for (let attempt = 0; attempt < RELEASE_TRIES; attempt++) {
        if (this.parts.every((part) => removeDir(part.dir))) break;
        await new Promise((resolve) => setTimeout(resolve, RELEASE_PAUSE_MS));
      }
      this.forget();
    })();
    return this.releasing;
  }
}

/** The number after `key` in a flat-keyed cgroup file (`max 3`, `oom_kill 1`); 0 when absent. */
function counter(file: string, key: string): number {
  try {
    const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(fs.readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Kills the members (all of them a confined command's) and removes the directory; false while it is still busy. */
function removeDir(dir: string): boolean {
  try {
    for (const pid of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    fs.rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Removes the groups of servers that are gone (killed before they could clean up). */
function sweepStale(parent: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = GROUP_NAME.exec(name)?.[1];
    if (owner !== undefined && Number(owner) !== process.pid && !isAlive(Number(owner))) removeDir(path.join(parent, name));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function writeIfPresent(file: string, value: string): void {
  if (fs.existsSync(file)) fs.writeFileSync(file, value);
}
