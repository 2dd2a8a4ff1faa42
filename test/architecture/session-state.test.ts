// Per-session state lives in the session scope: no provider or tool keeps a
// table keyed by a session's id (see session-keys.ts for what counts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sessionKeyUses } from './session-keys.js';
import { SRC, sourceFiles } from './source-tree.js';

/**
 * Uses by id that stay, each with why (file, enclosing method). A new entry
 * needs a reason of this kind; an entry no longer needed fails the test.
 */
const ALLOWED: ReadonlyArray<{ readonly file: string; readonly within: string; readonly why: string }> = [
  { file: 'providers/exec/terminal/local-terminal-service.ts', within: 'disposeOwner', why: 'the seam names the owner by id (embedders): a scan of the open sessions, not a table' },
  { file: 'providers/tasks/task-tables.ts', within: 'stopOwnersWithId', why: 'the seam names the owner by id (embedders): a scan of the open sessions, not a table' },
  { file: 'providers/exec/engine/session-containers.ts', within: 'release', why: 'release(sessionId) for embedders: a scan of the open sessions, not a table' },
  { file: 'providers/exec/engine/session-containers.ts', within: 'end', why: "end(sessionId) for the session registry (any replica ends a shared session): a scan of the open sessions, not a table" },
  { file: 'providers/exec/engine/shared-containers.ts', within: 'listSharedContainers', why: "a shared session's container is found across servers by its engine label, the only link between replicas: compared whole because an engine may shorten label values" },
  { file: 'providers/exec/engine/shared-containers.ts', within: 'sweepSharedContainers', why: "the sweep keeps the containers whose session the registry still records (its set of live ids): engine labels, not per-session state" },
  { file: 'providers/policy/approval/local-approval-service.ts', within: 'policyOf', why: 'reads the standing rules of the deprecated string form' },
  { file: 'providers/observability/host-metrics.ts', within: 'shellOpen', why: "the open-shells gauge counts sessions by the call-end event's id (the event carries no session)" },
  { file: 'providers/backends/kubernetes/lease-session-registry.ts', within: 'liveSessionIds', why: "the registry seam answers its records' session ids to the sandbox sweep: records shared by replicas, not a table of this process" },
  { file: 'providers/registry/file-session-registry.ts', within: 'liveSessionIds', why: "the registry seam answers its records' session ids to the sandbox sweep: records shared by replicas, not a table of this process" },
  { file: 'providers/observability/host-metrics.ts', within: 'shellIsOpen', why: "the operator console reads the open-shells gauge's own set" },
];

describe('per-session state lives in the session scope', () => {
  it('no provider or tool keys a table by a session id, or fences by comparing ids', () => {
    const found = [...sourceFiles(path.join(SRC, 'providers')), ...sourceFiles(path.join(SRC, 'tools'))].flatMap((full) => {
      const file = path.relative(SRC, full);
      return sessionKeyUses(readFileSync(full, 'utf8'), full).map((use) => ({ file, ...use }));
    });
    const unexplained = found
      .filter((use) => !ALLOWED.some((allowed) => allowed.file === use.file && allowed.within === use.within))
      .map((use) => `${use.file}:${use.line} (${use.within || 'top level'}): ${use.text}`);
    expect(unexplained).toEqual([]);
    const unused = ALLOWED.filter((allowed) => !found.some((use) => use.file === allowed.file && use.within === allowed.within));
    expect(unused).toEqual([]);
  });
});

describe('the session-key check', () => {
  it('finds the tables the providers kept before the scope held them', () => {
    const before = `
      class Slots {
        take(session) { const id = session?.id ?? ''; return this.slots.get(id); }
        open(owner, pty) { this.entries.set(randomUUID(), { ownerId: owner.id, pty }); this.opening.set(p, owner.id); }
        lookup(owner, id) { const entry = this.entries.get(id); if (entry.ownerId !== owner.id) throw new Error('unknown'); }
        canSee(caller, entry) { return entry.ownerId === undefined || entry.ownerId === caller?.id; }
        acquire(session) { const key = session?.id ?? ''; this.entries.delete(key); }
        metric(end) { this.shells.add(end.sessionId); }
      }`;
    expect(sessionKeyUses(before).map((use) => `${use.within}: ${use.text}`)).toEqual([
      'take: this.slots.get(id)',
      'open: this.entries.set(randomUUID(), { ownerId: owner.id, pty })',
      'open: this.opening.set(p, owner.id)',
      "lookup: entry.ownerId !== owner.id",
      'canSee: entry.ownerId === caller?.id',
      'acquire: this.entries.delete(key)',
      'metric: this.shells.add(end.sessionId)',
    ]);
  });

  it('leaves the id alone where it is text, a label, or checked against a literal', () => {
    const fine = `
      class Scoped {
        open(owner) {
          if (owner.disposed) throw new Error(\`session \${owner.id} is disposed\`);
          const labels = { session: owner.id };
          if (typeof owner.id !== 'string' || end.sessionId === undefined || owner.id === '') return;
          return scopeOf(owner).get(this.key, () => new OwnerPtys(owner));
        }
      }`;
    expect(sessionKeyUses(fine)).toEqual([]);
  });
});
