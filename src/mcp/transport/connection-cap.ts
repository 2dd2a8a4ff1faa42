import type { Socket } from 'node:net';

/** Connections that have not yet sent an authenticated request, held at most (`--max-unauthenticated-connections`). */
export const DEFAULT_MAX_UNAUTHENTICATED = 128;

/**
 * The cap on connections that have not (yet) shown a token. Past it the
 * oldest such connection is closed, never the new one: a flood of idle or
 * half-open sockets then only pushes out its own oldest members, and an
 * honest client, which sends its request with the token at once, is counted
 * as authenticated before the flood reaches it. Each closed connection frees
 * its descriptor, so the flood cannot exhaust the process's descriptors
 * either (docs/operations.md, Limits).
 */
export class UnauthenticatedConnections {
  /** Insertion order is age order. */
  private readonly waiting = new Set<Socket>();
  private closedCount = 0;

  constructor(private readonly max: number = DEFAULT_MAX_UNAUTHENTICATED) {}

  /** Connections not yet authenticated now. */
  get size(): number {
    return this.waiting.size;
  }

  /** How many were closed to make room (for the log and tests). */
  get closed(): number {
    return this.closedCount;
  }

  opened(socket: Socket): void {
    this.waiting.add(socket);
    socket.once('close', () => this.waiting.delete(socket));
    while (this.waiting.size > this.max) {
      const oldest = this.waiting.values().next().value!;
      this.waiting.delete(oldest);
      this.closedCount++;
      oldest.destroy();
    }
  }

  /** The connection carried a request with a valid token: it no longer counts. */
  authenticated(socket: Socket): void {
    this.waiting.delete(socket);
  }
}
