/**
 * The one place `--max-sessions` and `--max-sessions-per-caller` are
 * decided, for every era: a 2025 HTTP session and a 2026-07-28 session
 * handle each hold one slot from the same counter. When a cap is reached,
 * an idle session (no request in flight, no open event stream, no running
 * task) is released to make room: the asking caller's own idle ones first,
 * then, for the server-wide cap only, anyone's — oldest idle first. A
 * session with running work is never released; a per-caller cap never
 * releases another caller's session.
 */

/** The end of a refusal: when the first session the cap counts ends by itself (from `nextFreed`), if one will. */
export function freedNote(at: number | undefined, now: number): string {
  return at === undefined ? '' : ` (the next one ends in ${Math.max(1, Math.ceil((at - now) / 1000))} s)`;
}

/** Which cap refused a new session. */
export type SessionRefusal = 'server' | 'caller';

export interface SessionCaps {
  /** Sessions held at once over all callers and eras (opening ones count). */
  readonly maxSessions: number;
  /** Sessions one caller holds at once; undefined: only `maxSessions`. */
  readonly maxSessionsPerCaller?: number;
}

/** A session's place in the count; `free()` gives it back (idempotent). */
export interface SessionSlot {
  readonly caller: string | undefined;
  free(): void;
}

/** Why a session was released to make room: the cap that was reached (the same two a refusal names). */
export type EvictionCause = SessionRefusal;

/** An idle session a table offers for release. */
export interface IdleCandidate {
  readonly caller: string | undefined;
  /** When its last activity ended (a request, its stream, its last task): the smallest goes first. */
  readonly idleSince: number;
  /** Releases it now; must free its slot before returning (its teardown may go on in the background). */
  evict(cause: EvictionCause): void;
}

/** When a session will be ended by its table's idle stages, if nothing changes. */
export interface PlannedEnd {
  readonly caller: string | undefined;
  readonly at: number;
}

/** A table of sessions (one per era) the counter may ask for idle ones. */
interface IdleSource {
  idleCandidates(): Iterable<IdleCandidate>;
  /** Its sessions' planned ends (abandonment or lifetime): what a refusal can promise. */
  plannedEnds?(): Iterable<PlannedEnd>;
}

export class SessionCounter {
  private readonly byCaller = new Map<string | undefined, number>();
  private held = 0;
  private readonly sources: IdleSource[] = [];

  constructor(readonly caps: SessionCaps) {}

  /** Lets the counter release `source`'s idle sessions when a cap is reached. */
  addSource(source: IdleSource): void {
    this.sources.push(source);
  }

  get total(): number {
    return this.held;
  }

  heldBy(caller: string | undefined): number {
    return this.byCaller.get(caller) ?? 0;
  }

  /** A slot for a new session of `caller`, after releasing idle sessions if a cap needs it; else which cap refused. */
  take(caller: string | undefined): SessionSlot | SessionRefusal {
    const perCaller = this.caps.maxSessionsPerCaller;
    while (perCaller !== undefined && this.heldBy(caller) >= perCaller) {
      if (!this.evictOldest((candidate) => candidate.caller === caller, 'caller')) return 'caller';
    }
    while (this.held >= this.caps.maxSessions) {
      const own = this.evictOldest((candidate) => candidate.caller === caller, 'server');
      if (!own && !this.evictOldest(() => true, 'server')) return 'server';
    }
    return this.hold(caller);
  }

  /** When the first session `refusal`'s cap counts will end by itself (the caller's own for the per-caller cap); undefined: none is planned. */
  nextFreed(refusal: SessionRefusal, caller: string | undefined): number | undefined {
    let first: number | undefined;
    for (const source of this.sources) {
      for (const end of source.plannedEnds?.() ?? []) {
        if (refusal === 'caller' && end.caller !== caller) continue;
        if (first === undefined || end.at < first) first = end.at;
      }
    }
    return first;
  }

  private hold(caller: string | undefined): SessionSlot {
    this.held++;
    this.byCaller.set(caller, this.heldBy(caller) + 1);
    let freed = false;
    return {
      caller,
      free: () => {
        if (freed) return;
        freed = true;
        this.held--;
        const left = this.heldBy(caller) - 1;
        if (left > 0) this.byCaller.set(caller, left);
        else this.byCaller.delete(caller);
      },
    };
  }

  /** Releases the longest-idle candidate `which` accepts; false when there is none. */
  private evictOldest(which: (candidate: IdleCandidate) => boolean, cause: EvictionCause): boolean {
    let oldest: IdleCandidate | undefined;
    for (const source of this.sources) {
      for (const candidate of source.idleCandidates()) {
        if (which(candidate) && (oldest === undefined || candidate.idleSince < oldest.idleSince)) oldest = candidate;
      }
    }
    if (oldest === undefined) return false;
    const before = this.held;
    oldest.evict(cause);
    // A source that did not free the slot would loop forever: treat it as nothing released.
    return this.held < before;
  }
}
