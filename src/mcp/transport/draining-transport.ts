import type { JSONRPCMessage, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

/** What a request that arrives while the server drains is answered (JSON-RPC error -32000). */
export const DRAINING_MESSAGE = 'the server is shutting down: it accepts no new sessions or calls; reconnect later';

/**
 * A transport that knows which client requests are still unanswered, so a
 * shutdown can wait for their answers, and that answers new requests itself
 * with a JSON-RPC error once `drain()` was called (responses and
 * notifications from the client still pass: an approval answer or a cancel
 * belongs to a call already running). A request the client cancels counts
 * as answered. Requests are counted as they arrive
 * from the wire, before the SDK schedules their handler, so a call read just
 * before stdin ended is never missed.
 */
export class DrainingTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];
  private readonly pending = new Set<RequestId>();
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly inner: Transport) {
    inner.onclose = () => {
      // Nothing more can be answered on a closed transport.
      this.pending.clear();
      this.settle();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if ('method' in message && 'id' in message) {
        if (this.draining) {
          void inner.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: DRAINING_MESSAGE } }).catch(() => undefined);
          return;
        }
        this.pending.add(message.id);
      }
      // A request the client cancelled gets no answer (the protocol says so): stop waiting for one.
      if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
        const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (requestId !== undefined && this.pending.delete(requestId)) this.settle();
      }
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** True while the request under `id` was received and is not answered (or cancelled) yet. */
  awaits(id: RequestId): boolean {
    return this.pending.has(id);
  }

  /** Requests received and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.inner.send(message, options);
    } finally {
      if (('result' in message || 'error' in message) && message.id !== undefined && this.pending.delete(message.id)) this.settle();
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** From now on new requests are refused; resolves once every request received before is answered. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settle(): void {
    if (this.pending.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
