import type { IPty } from 'node-pty';

/** Loop turns the master may keep delivering after the stream was to be destroyed (a job still writing to the terminal). */
const MAX_TURNS = 64;

/** The part of node-pty's terminal this reaches into: its read stream on the master (the same in `@lydell/node-pty`). */
interface PtyInternals {
  readonly _socket?: { destroy?: (error?: Error) => unknown; readonly destroyed?: boolean };
}

/**
 * node-pty waits at most 200 ms after the shell's exit for its read stream
 * on the master to end by itself (reading EIO once the shell's last output
 * was read), then destroys it. On an event loop that stalled that long (a
 * loaded machine) the shell's last output (bash's `exit`, a final line) was
 * still unread in the master, and was lost. Here that destroy first lets the
 * loop turn (each turn polls the master) until a turn brings no output, at
 * most `MAX_TURNS`; a stream that ends by itself meanwhile needs nothing
 * more. A destroy with an error, or a second one, goes through at once.
 * Reaches into node-pty's private `_socket`: without it (another version),
 * nothing changes.
 */
export function readLastOutputBeforeDestroy(pty: IPty): void {
  const socket = (pty as unknown as PtyInternals)._socket;
  const destroy = socket?.destroy;
  if (socket === undefined || typeof destroy !== 'function') return;
  let received = 0;
  pty.onData(() => {
    received++;
  });
  let deferred = false;
  socket.destroy = (error?: Error): unknown => {
    if (error !== undefined || deferred || socket.destroyed === true) return destroy.call(socket, error);
    deferred = true;
    let turns = 0;
    let seen = received;
    const turn = (): void => {
      if (socket.destroyed === true) return;
      if (received !== seen && ++turns < MAX_TURNS) {
        seen = received;
        setImmediate(turn);
        return;
      }
      destroy.call(socket);
    };
    // Two turns first: called during the loop's poll phase, one immediate would run before the next poll.
    setImmediate(() => setImmediate(turn));
    return socket;
  };
}
