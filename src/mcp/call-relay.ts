import type { Notification, ServerContext } from '@modelcontextprotocol/server';

/**
 * The request context a call waiting across `input_required` round trips
 * runs with: one signal and one notification channel for the whole call,
 * connected to whichever request of the call is open now (the first one,
 * then each retry). Between rounds no request is open: progress is dropped
 * and only the approval's own limit (or a drain) can end the call.
 */
export class CallRelay {
  private readonly aborted = new AbortController();
  private attached: ServerContext | undefined;
  private stopListening: (() => void) | undefined;
  /** The context to run the call with: the first request's, with the relay's signal and notify. */
  readonly ctx: ServerContext;

  constructor(first: ServerContext) {
    this.ctx = { ...first, mcpReq: { ...first.mcpReq, signal: this.aborted.signal, notify: (n: Notification) => this.notify(n) } };
    this.attach(first);
  }

  /** Connects the call to `ctx`: its cancel cancels the call, progress goes to it. */
  attach(ctx: ServerContext): void {
    this.detach();
    this.attached = ctx;
    const signal = ctx.mcpReq.signal;
    const abort = () => this.aborted.abort(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    this.stopListening = () => signal.removeEventListener('abort', abort);
  }

  /** The open request was answered (`input_required`): nothing is connected until the retry. */
  detach(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.attached = undefined;
  }

  private notify(notification: Notification): Promise<void> {
    return this.attached ? this.attached.mcpReq.notify(notification) : Promise.resolve();
  }
}
