import { randomUUID } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { asContributions, contributionsOf, type Contributions } from '../../core/contribution-collector.js';
import { scopeOf, ScopeKey } from '../../core/session-scope.js';
import type { SessionContext } from '../../core/tool-contract.js';
import {
  TerminalBackend,
  type PtySession,
  type SendOptions,
  type SendResult,
  type TerminalOpenOptions,
  type TerminalService,
} from './terminal-service.js';

interface Entry {
  readonly ownerId: string;
  readonly pty: PtySession;
}

/**
 * Owner-scoped PTY sessions over the multi-bound backends. Ids are random
 * UUIDs and every operation checks the owner, so another session's id reads
 * exactly like an unknown one. An owner's PTYs are closed by its session
 * scope (a scoped service per owner).
 */
@injectable()
export class LocalTerminalService implements TerminalService {
  private readonly backends: Contributions<TerminalBackend>;
  private readonly entries = new Map<string, Entry>();
  /** Marks, in each owner's scope, that this service closes the owner's PTYs when it closes. */
  private readonly ownerKey = new ScopeKey<true>('the persistent shells (PTYs)', { outlivesCall: true, holdsProcess: true });
  /** Opens in flight (settled after any cleanup), by owner id. */
  private readonly opening = new Map<Promise<unknown>, string>();
  private disposing?: Promise<void>;

  /** Backends are read per open (one loaded later counts); two of one type fail here and at that open. */
  constructor(
    @inject(contributionsOf(TerminalBackend)) @optional() backends: Contributions<TerminalBackend> | readonly TerminalBackend[] | undefined,
  ) {
    this.backends = asContributions(backends);
    this.backendFor(undefined);
  }

  open(owner: SessionContext, type: string, options: TerminalOpenOptions): Promise<string> {
    const opening = this.openFor(owner, type, options);
    const tracked = opening.catch(() => undefined);
    this.opening.set(tracked, owner.id);
    void tracked.then(() => this.opening.delete(tracked));
    return opening;
  }

  private async openFor(owner: SessionContext, type: string, options: TerminalOpenOptions): Promise<string> {
    if (this.disposing) throw new Error('the terminal service is disposed');
    if (owner.disposed) throw new Error(`session ${owner.id} is disposed`);
    const backend = this.backendFor(type);
    if (!backend) throw new Error(`no PTY backend registered for "${type}"`);
    scopeOf(owner).get(this.ownerKey, () => true, () => this.disposeOwner(owner.id));
    const pty = await backend.open({ ...options, session: owner });
    // The owner or the service may have gone away while bash was starting.
    if (this.disposing || owner.disposed) {
      await pty.close();
      throw new Error(this.disposing ? 'the terminal service is disposed' : `session ${owner.id} is disposed`);
    }
    const id = randomUUID();
    this.entries.set(id, { ownerId: owner.id, pty });
    return id;
  }

  /** Ordering is the caller's (the persistent tool queues a session's calls); the PTY refuses an overlapping send. */
  async send(owner: SessionContext, id: string, command: string, options: SendOptions): Promise<SendResult> {
    return this.lookup(owner, id).pty.send(command, options);
  }

  isAlive(owner: SessionContext, id: string): boolean {
    const entry = this.entries.get(id);
    return entry !== undefined && entry.ownerId === owner.id && entry.pty.alive;
  }

  async close(owner: SessionContext, id: string): Promise<void> {
    const entry = this.lookup(owner, id);
    this.entries.delete(id);
    await entry.pty.close();
  }

  async disposeOwner(ownerId: string): Promise<void> {
    const mine = [...this.entries].filter(([, entry]) => entry.ownerId === ownerId);
    for (const [id] of mine) this.entries.delete(id);
    const opening = [...this.opening].filter(([, owner]) => owner === ownerId).map(([promise]) => promise);
    await Promise.all([...mine.map(([, entry]) => entry.pty.close()), ...opening]);
  }

  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      // Opens in flight close their PTY themselves once they see the disposal; wait for that too.
      await Promise.all(this.opening.keys());
      const all = [...this.entries.values()];
      this.entries.clear();
      await Promise.all(all.map((entry) => entry.pty.close()));
    })();
    return this.disposing;
  }

  /** The backend of `type` bound now, after checking that no two share a type. */
  private backendFor(type: string | undefined): TerminalBackend | undefined {
    const byType = new Map<string, TerminalBackend>();
    for (const backend of this.backends()) {
      if (byType.has(backend.type)) throw new Error(`two PTY backends registered for "${backend.type}"`);
      byType.set(backend.type, backend);
    }
    return type === undefined ? undefined : byType.get(type);
  }

  private lookup(owner: SessionContext, id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry || entry.ownerId !== owner.id) throw new Error(`unknown terminal session "${id}"`);
    return entry;
  }
}
