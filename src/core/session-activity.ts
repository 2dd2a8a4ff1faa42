import { existingScopeOf, ScopeKey, scopeOf } from './session-scope.js';
import type { SessionContext } from './tool-contract.js';

// What a host knows about a session beyond its tools' calls (the MCP server:
// a request in flight, an open event stream, a running task, a question
// waiting for its answer), for the tools whose resources idle out with it.

/** How long the session has been idle by its host's count, in ms; undefined while it is busy. */
type SessionIdleFor = () => number | undefined;

const ACTIVITY = new ScopeKey<Set<SessionIdleFor>>('what keeps the session busy');

/** Lets `idleFor` keep `session`'s shell open while it reports the session busy (for the session's lifetime). */
export function reportSessionActivity(session: SessionContext, idleFor: SessionIdleFor): void {
  scopeOf(session).get(ACTIVITY, () => new Set<SessionIdleFor>()).add(idleFor);
}

/** How long every reporter has seen `session` idle (the shortest); undefined while any sees it busy; Infinity without reporters. */
export function sessionIdleFor(session: SessionContext): number | undefined {
  let shortest = Infinity;
  for (const idleFor of existingScopeOf(session)?.peek(ACTIVITY) ?? []) {
    const ms = idleFor();
    if (ms === undefined) return undefined;
    shortest = Math.min(shortest, ms);
  }
  return shortest;
}

