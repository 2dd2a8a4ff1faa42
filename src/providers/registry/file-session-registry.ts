import { randomBytes, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../logging/logger.js';
import { expiryOf } from './record-expiry.js';
import { assertSessionKey, newRecordOf, newRecordToStore } from './record-shape.js';
import type { NewSessionRecord, SessionRecord, SessionRegistry } from './session-registry.js';
import { TouchThrottle } from './touch-throttle.js';
import { privateDirectory } from './private-directory.js';
import { processAlive } from './process-alive.js';

/** The records directory the server uses unless told otherwise: per user, in the temporary directory of the engine's host. */
export function defaultSessionRecordDir(): string {
  return path.join(os.tmpdir(), `dsh-shared-sessions-${process.getuid?.() ?? os.userInfo().username}`);
}

export interface FileSessionRegistryOptions {
  readonly clock?: Clock;
  /** Runs between reading a record as expired and claiming it: tests race a touch there. */
  readonly beforeClaim?: (key: string) => Promise<void> | void;
}

const RECORD = /^([0-9a-f]{64})\.json$/;
const CLAIMED = /^([0-9a-f]{64})\.claimed-(\d+)-[0-9a-f]+$/;
const TEMP = /^\.[0-9a-f]{64}\.(\d+)-[0-9a-f]+\.tmp$/;
const REPLICA = /^\d+$/;
/** How long a touch or remove waits for a claim under way to end (a rename, a stat and a rename back or an unlink). */
const CLAIM_WAIT_MS = 1000;
const CLAIM_POLL_MS = 10;

/**
 * Session records as files in one directory on the engine's host, shared by
 * every replica there (docs/shared-sessions.md#registry): `<key>.json` holds
 * the record, its mtime is the last use. A reaper claims a record by renaming
 * it to a name of its own — rename is atomic, so of several claimers one
 * wins and the others find nothing — then reads the mtime again: a record
 * touched since it was read as idle is renamed back, not claimed.
 */
export class FileSessionRegistry implements SessionRegistry {
  readonly describe: string;
  private readonly clock: Clock;
  private readonly throttle = new TouchThrottle();
  private readonly instance = randomUUID();
  private prepared?: Promise<void>;

  constructor(
    readonly dir: string,
    private readonly options: FileSessionRegistryOptions = {},
  ) {
    this.describe = `dir ${dir}`;
    this.clock = options.clock ?? { now: () => Date.now() };
  }

  async register(record: NewSessionRecord): Promise<void> {
    const fields = newRecordToStore(record);
    await this.prepare();
    const createdAt = this.clock.now();
    const temp = path.join(this.dir, `.${record.key}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    await fs.writeFile(temp, JSON.stringify({ ...fields, createdAt }), { mode: 0o600, flag: 'wx' });
    try {
      await fs.utimes(temp, createdAt / 1000, createdAt / 1000);
      // link, unlike rename, refuses an existing name: the record appears whole, and only once.
      await fs.link(temp, this.recordPath(record.key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`a session record with key ${record.key.slice(0, 12)}… exists already`);
      throw error;
    } finally {
      await fs.rm(temp, { force: true });
    }
    this.throttle.wrote(fields, createdAt);
  }

  async find(key: string): Promise<SessionRecord | undefined> {
    assertSessionKey(key);
    await this.prepare();
    return readRecord(this.recordPath(key), key);
  }

  async touch(key: string): Promise<boolean> {
    assertSessionKey(key);
    await this.prepare();
    const now = this.clock.now();
    if (this.throttle.canSkip(key, now)) return true;
    const file = this.recordPath(key);
    const touched = await this.whileClaimed(key, async () => {
      await fs.utimes(file, now / 1000, now / 1000);
      // The record is still under its name after the write: a claimer that renames it later reads the new mtime and gives it back.
      await fs.stat(file);
    });
    if (!touched) {
      this.throttle.forget(key);
      return false;
    }
    const record = await readRecord(file, key);
    if (record !== undefined) this.throttle.wrote(record, now);
    return true;
  }

  async remove(key: string): Promise<boolean> {
    assertSessionKey(key);
    await this.prepare();
    const removed = await this.whileClaimed(key, () => fs.unlink(this.recordPath(key)));
    this.throttle.forget(key);
    return removed;
  }

  async claimExpired(now: number = this.clock.now()): Promise<SessionRecord[]> {
    await this.prepare();
    const claimed: SessionRecord[] = [];
    for (const name of await fs.readdir(this.dir)) {
      const record = RECORD.exec(name);
      const orphan = CLAIMED.exec(name);
      const temp = TEMP.exec(name);
      let taken: SessionRecord | undefined;
      if (record !== null) {
        const seen = await readRecord(path.join(this.dir, name), record[1]!);
        if (seen === undefined || expiryOf(seen, now) === undefined) continue;
        await this.options.beforeClaim?.(record[1]!);
        taken = await this.claimFrom(name, record[1]!, now);
      } else if (orphan !== null && !processAlive(Number(orphan[2]))) {
        // A claimer died between its rename and its unlink or rename back: the claim is anyone's again.
        taken = await this.claimFrom(name, orphan[1]!, now);
      } else if (temp !== null && !processAlive(Number(temp[1]))) {
        await fs.rm(path.join(this.dir, name), { force: true });
      }
      if (taken !== undefined) claimed.push(taken);
    }
    return claimed;
  }

  async liveSessionIds(): Promise<Set<string>> {
    await this.prepare();
    const ids = new Set<string>();
    for (const name of await fs.readdir(this.dir)) {
      // A record under a claim may be given back: its sandbox is not an orphan yet.
      const key = RECORD.exec(name)?.[1] ?? CLAIMED.exec(name)?.[1];
      const record = key === undefined ? undefined : await readRecord(path.join(this.dir, name), key);
      if (record !== undefined) ids.add(record.sessionId);
    }
    return ids;
  }

  async join(): Promise<void> {
    await this.prepare();
    const body = JSON.stringify({ pid: process.pid, hostname: os.hostname(), instance: this.instance, startedAt: this.clock.now() });
    const temp = path.join(this.replicasDir, `.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    await fs.writeFile(temp, body, { mode: 0o600, flag: 'wx' });
    await fs.rename(temp, path.join(this.replicasDir, String(process.pid)));
  }

  async leave(): Promise<void> {
    await this.prepare();
    const file = path.join(this.replicasDir, String(process.pid));
    const replica = await readReplica(file);
    if (replica?.instance === this.instance) await fs.rm(file, { force: true });
  }

  async othersAlive(): Promise<boolean> {
    await this.prepare();
    let alive = false;
    for (const name of await fs.readdir(this.replicasDir)) {
      if (!REPLICA.test(name) || Number(name) === process.pid) continue;
      const file = path.join(this.replicasDir, name);
      const replica = await readReplica(file);
      // Another host's pid cannot be asked: it counts alive (the directory is meant for one host).
      if ((replica !== undefined && replica.hostname !== os.hostname()) || processAlive(Number(name))) alive = true;
      else await fs.rm(file, { force: true });
    }
    return alive;
  }

  private get replicasDir(): string {
    return path.join(this.dir, 'replicas');
  }

  private recordPath(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }

  /** The directory, made 0700 on first use and refused when another user could write into it. */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await privateDirectory(this.dir);
      await privateDirectory(this.replicasDir);
    })().catch((error: unknown) => {
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }

  /**
   * Renames `name` to a claim of this process's own; then the record is this
   * replica's if it is still expired by its mtime as read now (no touch can
   * land after the rename), else it goes back under its name.
   */
  private async claimFrom(name: string, key: string, now: number): Promise<SessionRecord | undefined> {
    const claim = path.join(this.dir, `${key}.claimed-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await fs.rename(path.join(this.dir, name), claim);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const record = await readRecord(claim, key);
    if (record !== undefined && expiryOf(record, now) === undefined) {
      await fs.rename(claim, this.recordPath(key));
      return undefined;
    }
    await fs.rm(claim, { force: true });
    this.throttle.forget(key);
    return record;
  }

  /**
   * Runs `write` on the record; when the record is missing because a claim
   * holds it, waits for the claim to end (it gives the record back or ends
   * it) and runs it again. False when the record is gone.
   */
  private async whileClaimed(key: string, write: () => Promise<void>): Promise<boolean> {
    for (const deadline = Date.now() + CLAIM_WAIT_MS; ; ) {
      try {
        await write();
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      // The claim first, then the name: a claim given back between the two looks still held, never gone.
      const names = await fs.readdir(this.dir);
      const held = names.some((name) => name.startsWith(`${key}.claimed-`)) || (await exists(this.recordPath(key)));
      if (!held || Date.now() >= deadline) return false;
      await sleep(CLAIM_POLL_MS);
    }
  }
}

/** The record in `file` with its mtime as last use, or undefined when it is missing or not a record of `key`. */
async function readRecord(file: string, key: string): Promise<SessionRecord | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat();
    const parsed = JSON.parse(await handle.readFile('utf8')) as { createdAt?: unknown };
    const fields = newRecordOf(parsed);
    const createdAt = parsed.createdAt;
    if (fields === undefined || fields.key !== key || typeof createdAt !== 'number' || !Number.isFinite(createdAt)) return undefined;
    // Whole milliseconds: utimes stores seconds as a float, read back a hair off.
    return { ...fields, createdAt, lastUseAt: Math.round(stat.mtimeMs) };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

async function readReplica(file: string): Promise<{ hostname?: unknown; instance?: unknown } | undefined> {
  try {
    const value = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch {
    return false;
  }
}
