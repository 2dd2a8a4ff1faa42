import type { Clock } from '../../providers/logging/logger.js';
import { evictable, IdleStages, type IdleSettings, type SessionActivity } from './idle-stages.js';
import { ReleasedSessions, releaseReason, stageCause, type ReleaseCause } from './released-sessions.js';
import type { IdleCandidate, PlannedEnd, SessionCounter, SessionSlot } from './session-counter.js';

/** A live session as the operator console lists it. */
export interface LiveSession {
  readonly caller: string | undefined;
  readonly activity: Pick<SessionActivity, 'session' | 'openedAt' | 'lastActiveAt'>;
}

/** What every session a server keeps has: whose it is, its place in the count, and what keeps it busy. */
interface IdleTableEntry {
  readonly caller: string | undefined;
  readonly slot: SessionSlot;
  readonly activity: SessionActivity;
}

interface IdleTableSettings {
  readonly idle: IdleSettings;
  /** The one `--max-sessions`/`--max-sessions-per-caller` count both protocol eras share. */
  readonly counter: SessionCounter;
  readonly clock?: Clock;
}

/**
 * The idle wiring both protocol eras' session tables share (a legacy
 * `Mcp-Session-Id`, a 2026 session handle): the idle stages over their
 * sessions, the counter's view of which sessions may make room and when one
 * ends by itself, and the reasons remembered for released keys. Each table
 * says which of its entries still count (`live`) and how one ends (`end`).
 */
export class IdleSessionTable<E extends IdleTableEntry> {
  readonly entries = new Map<string, E>();
  readonly clock: Clock;
  private readonly released = new ReleasedSessions();
  private readonly stages: IdleStages;

  constructor(
    private readonly settings: IdleTableSettings,
    private readonly live: (entry: E) => boolean,
    private readonly end: (key: string, entry: E, cause: ReleaseCause) => void,
  ) {
    this.clock = settings.clock ?? { now: () => Date.now() };
    this.stages = new IdleStages(settings.idle, this.clock, () => this.liveEntries().map(([, entry]) => entry.activity), (activity, cause) => {
      const key = this.liveEntries().find(([, entry]) => entry.activity === activity)?.[0];
      if (key !== undefined) this.release(key, stageCause(cause, settings.idle));
    });
    this.stages.start();
    settings.counter.addSource({ idleCandidates: () => this.idleCandidates(), plannedEnds: () => this.plannedEnds() });
  }

  /** One idle stage pass now (tests drive it with a fake clock). */
  sweep(): void {
    this.stages.sweep();
  }

  /** No more idle passes (server shutdown). */
  stop(): void {
    this.stages.stop();
  }

  /** Why `caller`'s released `key` was released; undefined for any other key or caller. */
  releasedReason(key: string, caller: string | undefined): string | undefined {
    return this.released.reasonFor(key, caller);
  }

  /** Ends a live session the server releases (abandoned, past its lifetime, or to make room), and remembers why. */
  release(key: string, cause: ReleaseCause): void {
    const entry = this.entries.get(key);
    if (!entry || !this.live(entry)) return;
    this.released.remember(key, entry.caller, releaseReason(cause, this.settings.counter.caps));
    this.end(key, entry, cause);
  }

  /** Who holds each live session and what it does (the operator console's list). */
  liveSessions(): LiveSession[] {
    return this.liveEntries().map(([, entry]) => ({ caller: entry.caller, activity: entry.activity }));
  }

  private liveEntries(): Array<[string, E]> {
    return [...this.entries].filter(([, entry]) => this.live(entry));
  }

  private *idleCandidates(): Iterable<IdleCandidate> {
    for (const [key, entry] of this.liveEntries()) {
      const idleSince = entry.activity.idleSince();
      if (!evictable(idleSince, this.clock.now(), this.settings.idle)) continue;
      yield { caller: entry.caller, idleSince, evict: (cap) => this.release(key, { kind: 'evicted', cap }) };
    }
  }

  private *plannedEnds(): Iterable<PlannedEnd> {
    for (const [, entry] of this.liveEntries()) {
      const at = entry.activity.endsAt(this.settings.idle);
      if (at !== undefined) yield { caller: entry.caller, at };
    }
  }
}
