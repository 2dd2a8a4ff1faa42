import { randomUUID } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { asContributions, contributionsOf, type Contributions } from '../../../core/contribution-collector.js';
import { PerSession } from '../../../core/per-session.js';
import type { SessionContext } from '../../../core/tool-contract.js';
import {
  TerminalBackend,
  type PtySession,
  type SendOptions,
  type SendResult,
  type TerminalOpenOptions,
  type TerminalService,
} from './terminal-service.js';
import { OwnerPtys } from './owner-ptys.js';

/**
 * Owner-scoped PTY sessions over the multi-bound backends. Ids are random
 * UUIDs and every operation checks the owner, so another session's id reads
 * exactly like an unknown one. Each owner's PTYs live in its session scope
 * (`OwnerPtys`, found by the session object) and close with it.
 */
@injectable()
export class LocalTerminalService implements TerminalService {
  private readonly backends: Contributions<TerminalBackend>;
  /** Each owner's PTYs, in its scope (this service's: another keeps its own); the open ones reach a service disposal that comes before theirs. */
  private readonly owners = new PerSession<OwnerPtys, SessionContext>(
    'the persistent shells (PTYs)',
    { outlivesCall: true },
    (owner) => new OwnerPtys(owner),
    (ptys) => ptys.close(),
  );
  private disposing?: Promise<void>;

  /** Backends are read per open (one loaded later counts); two of one type fail here and at that open. */
  constructor(
    @inject(contributionsOf(TerminalBackend)) @optional() backends: Contributions<TerminalBackend> | readonly TerminalBackend[] | undefined,
  ) {
    this.backends = asContributions(backends);
    this.backendFor(undefined);
  }

  async open(owner: SessionContext, type: string, options: TerminalOpenOptions): Promise<string> {
    if (this.disposing) throw new Error('the terminal service is disposed');
    if (owner.disposed) throw new Error(`session ${owner.id} is disposed`);
    const backend = this.backendFor(type);
    if (!backend) throw new Error(`no PTY backend registered for "${type}"`);
    const ptys = this.ptysOf(owner);
    const opening = this.openIn(ptys, backend, options);
    ptys.track(opening);
    return opening;
  }

  private async openIn(ptys: OwnerPtys, backend: TerminalBackend, options: TerminalOpenOptions): Promise<string> {
    const owner = ptys.owner;
    const pty = await backend.open({ ...options, session: owner });
    // The owner or the service may have gone away while bash was starting.
    if (this.disposing || owner.disposed || ptys.closed) {
      await (pty.letGo ? pty.letGo() : pty.close());
      throw new Error(this.disposing ? 'the terminal service is disposed' : `session ${owner.id} is disposed`);
    }
    const id = randomUUID();
    ptys.add(id, pty);
    return id;
  }

  /** Ordering is the caller's (the persistent tool queues a session's calls); the PTY refuses an overlapping send. */
  async send(owner: SessionContext, id: string, command: string, options: SendOptions): Promise<SendResult> {
    return this.lookup(owner, id).send(command, options);
  }

  isAlive(owner: SessionContext, id: string): boolean {
    return this.ownPtys(owner)?.get(id)?.alive === true;
  }

  async close(owner: SessionContext, id: string): Promise<void> {
    const pty = this.ownPtys(owner)?.take(id);
    if (!pty) throw unknownTerminal(id);
    await pty.close();
  }

  /** By id for embedders: closes the PTYs of every open session with this id (the scope does it for a closing session). */
  async disposeOwner(ownerId: string): Promise<void> {
    await Promise.all(this.owners.open().filter((ptys) => ptys.owner.id === ownerId).map((ptys) => ptys.closeAll()));
  }

  dispose(): Promise<void> {
    // Opens in flight close their PTY themselves once they see the disposal; each owner's close waits for that too.
    this.disposing ??= Promise.all(this.owners.open().map((ptys) => ptys.close())).then(() => undefined);
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

  /** The owner's PTYs, made in its scope on its first open (throws once the session is disposed). */
  private ptysOf(owner: SessionContext): OwnerPtys {
    return this.owners.of(owner);
  }

  /** The owner's PTYs if it opened any: another session's are never found. */
  private ownPtys(owner: SessionContext): OwnerPtys | undefined {
    return this.owners.existing(owner);
  }

  private lookup(owner: SessionContext, id: string): PtySession {
    const pty = this.ownPtys(owner)?.get(id);
    if (!pty) throw unknownTerminal(id);
    return pty;
  }
}

function unknownTerminal(id: string): Error {
  return new Error(`unknown terminal session "${id}"`);
}
