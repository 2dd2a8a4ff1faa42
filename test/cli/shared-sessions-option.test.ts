// `serve --shared-sessions`: the flag combinations refused at start, and the
// replica's part over a real record directory — the expiry pass ends what
// expired and sweeps what has no record; a stop ends every session only when
// no other replica is left, and never with --leave-sessions or a failed start.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkSharedSessionFlags, runSharedSessions, type SharedSandboxes } from '../../src/cli/shared-sessions-option.js';
import type { Logger } from '../../src/providers/logging/logger.js';
import { FileSessionRegistry } from '../../src/providers/registry/file-session-registry.js';
import { sessionKey, type NewSessionRecord } from '../../src/providers/registry/session-registry.js';
import { usedMarker } from '../../src/providers/registry/used-marker.js';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Records what the pass asked of the sandboxes. */
class RecordingSandboxes implements SharedSandboxes {
  readonly ended: string[] = [];
  readonly swept: Array<{ live: string[]; graceMs: number }> = [];
  end(sessionId: string): Promise<void> {
    this.ended.push(sessionId);
    return Promise.resolve();
  }
  sweepOrphans(live: ReadonlySet<string>, graceMs: number): Promise<number> {
    this.swept.push({ live: [...live].sort(), graceMs });
    return Promise.resolve(0);
  }
}

const record = (sessionId: string, idleMs: number, maxLifetimeMs = 0): NewSessionRecord => ({
  key: sessionKey(`credential-of-${sessionId}`),
  era: 'legacy',
  caller: 'agent',
  sessionId,
  cwd: '/w',
  idleMs,
  maxLifetimeMs,
});

describe('the shared-session flags', () => {
  it('refuses --shared-sessions without HTTP or an engine, and --leave-sessions without it', () => {
    expect(() => checkSharedSessionFlags({ sharedSessions: true }, false, true)).toThrow("--shared-sessions needs --http: a stdio session lives and ends with its client's pipe");
    expect(() => checkSharedSessionFlags({ sharedSessions: true }, true, false)).toThrow(
      "--shared-sessions needs --container or --kubernetes: a local or bwrap session's processes are children of this server and end with it",
    );
    expect(() => checkSharedSessionFlags({ leaveSessions: true }, true, true)).toThrow('--leave-sessions needs --shared-sessions');
    expect(() => checkSharedSessionFlags({ sharedSessions: true, leaveSessions: true }, true, true)).not.toThrow();
    expect(() => checkSharedSessionFlags({}, false, false)).not.toThrow();
  });
});

describe('a replica of shared sessions', () => {
  let dir: string;
  let now: number;
  let registry: FileSessionRegistry;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-shared-cli-'));
    now = Date.now();
    registry = new FileSessionRegistry(path.join(dir, 'records'), { clock: { now: () => now } });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('ends the sessions whose record expired, once, and sweeps with the live ones', async () => {
    await registry.register(record('idle', 1000));
    await registry.register(record('busy', 60_000));
    const sandboxes = new RecordingSandboxes();
    const replica = await runSharedSessions(registry, sandboxes, quiet, 3600, false);
    try {
      now += 5000;
      await replica.passNow();
      await replica.passNow();
      expect(sandboxes.ended).toEqual(['idle']);
      expect(sandboxes.swept.at(-1)).toEqual({ live: ['busy'], graceMs: 1_800_000 });
      expect(await registry.find(sessionKey('credential-of-idle'))).toBeUndefined();
    } finally {
      await replica.abandon();
    }
  });

  it("removes an approval answer's used marker once it expired, and ends no sandbox for it", async () => {
    await registry.register(usedMarker('nonce-1', 'agent', 1000));
    // Taken while it lasts: a second use of the same value is refused by the registry itself.
    await expect(registry.register(usedMarker('nonce-1', 'agent', 1000))).rejects.toThrow();
    const sandboxes = new RecordingSandboxes();
    const replica = await runSharedSessions(registry, sandboxes, quiet, 3600, false);
    try {
      now += 5000;
      await replica.passNow();
      expect(sandboxes.ended).toEqual([]);
      expect(await registry.liveSessionIds()).toEqual(new Set());
    } finally {
      await replica.abandon();
    }
  });

  it('the last replica to stop ends every session, even one that never expires', async () => {
    await registry.register(record('forever', 0, 0));
    await registry.register(record('young', 60_000));
    const sandboxes = new RecordingSandboxes();
    const replica = await runSharedSessions(registry, sandboxes, quiet, 3600, false);
    await replica.stop();
    expect(sandboxes.ended.sort()).toEqual(['forever', 'young']);
    expect(await registry.liveSessionIds()).toEqual(new Set());
  });

  it('leaves the sessions to another live replica, or to a later one with --leave-sessions, and a failed start ends nothing', async () => {
    await registry.register(record('kept', 60_000));
    // Another replica on this host: a live process with its replica file, as its own join would write it.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    const sandboxes = new RecordingSandboxes();
    try {
      await registry.join();
      writeFileSync(path.join(dir, 'records', 'replicas', String(other.pid)), JSON.stringify({ pid: other.pid, hostname: os.hostname(), instance: 'other', startedAt: now }));
      const stopping = await runSharedSessions(registry, sandboxes, quiet, 3600, false);
      await stopping.stop();
    } finally {
      other.kill('SIGKILL');
    }
    const leaving = await runSharedSessions(registry, sandboxes, quiet, 3600, true);
    await leaving.stop();
    const failed = await runSharedSessions(registry, sandboxes, quiet, 3600, false);
    await failed.abandon();
    expect(sandboxes.ended).toEqual([]);
    expect(await registry.liveSessionIds()).toEqual(new Set(['kept']));
  });
});
