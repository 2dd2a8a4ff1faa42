import type { SessionRefusal } from '../sessions/session-counter.js';
import type { SharedSessions } from '../sessions/shared-sessions.js';
import { adoptLegacySession, type LegacySessionDeps } from './http-legacy.js';

/** What became of a request's unknown `Mcp-Session-Id`: served here now, refused for now, or unknown (undefined). */
export type Adoption = 'adopted' | 'draining' | SessionRefusal | undefined;

/**
 * With shared sessions, an `Mcp-Session-Id` this replica does not hold may
 * be a session another replica opened: when the registry has it and the
 * request's caller opened it, it is served here from then on (a slot of
 * the session count, a host session under its own id, a transport that
 * knows the client). Anything else — no record, another caller's, past its
 * time — is unknown, exactly as without a registry. Concurrent requests of
 * one caller for one id adopt it once; a draining replica adopts nothing.
 */
export function adoptLegacy(shared: SharedSessions, deps: LegacySessionDeps, draining: () => boolean): (id: string, caller: string) => Promise<Adoption> {
  const { sessions } = deps;
  return (id, caller) =>
    shared.once(id, caller, async (): Promise<Adoption> => {
      // A session this replica is letting go of (idle, or ended elsewhere) leaves first: its host session id is free again.
      await sessions.whenGone(id);
      // Held here already, by another caller (the same caller's request would have found it).
      if (sessions.has(id)) return undefined;
      const record = await shared.find(id, 'legacy', caller);
      if (!record) return undefined;
      // The client retries; another replica (or this one restarted) serves it.
      if (draining()) return 'draining';
      const slot = sessions.reserve(caller);
      if (typeof slot === 'string') return slot;
      return (await adoptLegacySession(deps, id, record, caller, slot)) ? 'adopted' : undefined;
    });
}
