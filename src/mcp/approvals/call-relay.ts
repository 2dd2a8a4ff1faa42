import type { Notification, ProgressToken, ServerContext } from '@modelcontextprotocol/server';

const PROGRESS = 'notifications/progress';

/**
 * The request context a call waiting across `input_required` round trips
 * runs with: one signal and one notification channel for the whole call,
 * connected to whichever request of the call is open now (the first one,
 * then each retry).
 *
 * Progress may only name the token of a request that is open (the spec's
 * progress rule), and each retry is a new request with its own token (the
 * 2.x SDK uses the new request id). So a progress notification goes out
 * under the open request's token, and while no request is open (the client
 * is asking its user) the latest one is kept and sent first on the retry's
 * stream: the client learns at once that the call still runs and for how
 * long, and its per-request timeout is reset. A request without a token
 * gets no progress.
 */
export class CallRelay {
  private readonly aborted = new AbortController();
  private attached: { readonly ctx: ServerContext; readonly token: ProgressToken | undefined } | undefined;
  private stopListening: (() => void) | undefined;
  /** The latest progress of the call while no request was open (only its params matter). */
  private heldProgress: Record<string, unknown> | undefined;
  /** The context to run the call with: the first request's, with the relay's signal and notify. */
  readonly ctx: ServerContext;

  constructor(first: ServerContext, firstToken?: ProgressToken) {
    this.ctx = { ...first, mcpReq: { ...first.mcpReq, signal: this.aborted.signal, notify: (n: Notification) => this.notify(n) } };
    this.attach(first, firstToken);
  }

  /** Connects the call to `ctx` (whose progress token is `token`): its cancel cancels the call, progress goes to it. */
  attach(ctx: ServerContext, token?: ProgressToken): void {
    this.detach();
    this.attached = { ctx, token };
    const signal = ctx.mcpReq.signal;
    const abort = () => this.aborted.abort(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    this.stopListening = () => signal.removeEventListener('abort', abort);
    const held = this.heldProgress;
    this.heldProgress = undefined;
    if (held !== undefined) void this.notify({ method: PROGRESS, params: held } as Notification).catch(() => undefined);
  }

  /** The open request was answered (`input_required`): nothing is connected until the retry. */
  detach(): void {
    this.stopListening?.();
    this.stopListening = undefined;
    this.attached = undefined;
  }

  private notify(notification: Notification): Promise<void> {
    if (notification.method !== PROGRESS) return this.attached ? this.attached.ctx.mcpReq.notify(notification) : Promise.resolve();
    const params = (notification.params ?? {}) as Record<string, unknown>;
    if (this.attached === undefined) {
      this.heldProgress = params;
      return Promise.resolve();
    }
    const { token, ctx } = this.attached;
    if (token === undefined) return Promise.resolve();
    return ctx.mcpReq.notify({ ...notification, params: { ...params, progressToken: token } } as Notification);
  }
}
