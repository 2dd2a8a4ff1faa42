import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import {
  batchesAllowed,
  batchRefusal,
  checkMessage,
  INVALID_REQUEST,
  isModernRequest,
  oneLineError,
  PARSE_FAILURE,
  parseJson,
  rpcError,
  type RpcError,
} from './jsonrpc-checks.js';
import { duplicateIdRefusal, InFlightIds } from './request-ids.js';

/** The SDK's own stdio limit: one message (line) at most this long. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Requests a 2025-era client may send before `initialize` (a modern probe is answered by the SDK). */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping', 'server/discover']);

/** What a 2025-era request before `initialize` is answered. */
const NOT_INITIALIZED = 'Invalid Request: the connection is not initialized: send "initialize" first';

type RequestId = string | number;

/** Answers of one batch, written as one array once every request in it is answered. */
interface Batch {
  readonly waiting: Set<RequestId>;
  readonly answers: unknown[];
}

/**
 * MCP over stdin/stdout, one JSON-RPC message per line, with every line
 * checked first: invalid JSON gets -32700, a message that is not a valid
 * request -32600, bad params of `tools/call`/`logging/setLevel` -32602, a
 * batch is answered element by element where the negotiated version allows
 * batches (one array back) and -32600 otherwise, and a 2025-era request
 * before `initialize` is refused. stdin ending does not close it: the server
 * drains first.
 */
export class CheckedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** Told of every read failure and of the close, whoever else listens (the SDK sets `onerror`/`onclose`). */
  watcher?: { error(error: Error): void; closed(): void };
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  /** The 2025-era version the client asked for in `initialize`; set once it arrived. */
  private legacyVersion?: string;
  private modern = false;
  private readonly batches: Batch[] = [];
  private readonly inFlight = new InFlightIds();

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  /** The connection is already initialized (its `initialize` was answered before this transport existed). */
  markInitialized(version: string): void {
    this.legacyVersion = version;
  }

  start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onReadError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const out = oneLineError(message);
    const id = 'id' in out && ('result' in out || 'error' in out) ? (out.id as RequestId) : undefined;
    if (id !== undefined) this.inFlight.settle(id);
    const batch = id === undefined ? undefined : this.batches.find((b) => b.waiting.has(id));
    if (batch && id !== undefined) {
      batch.waiting.delete(id);
      batch.answers.push(out);
      if (batch.waiting.size > 0) return Promise.resolve();
      this.batches.splice(this.batches.indexOf(batch), 1);
      return this.write(batch.answers);
    }
    return this.write(out);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onReadError);
    this.pending = [];
    this.onclose?.();
    this.watcher?.closed();
    return Promise.resolve();
  }

  private readonly onReadError = (error: Error) => this.fail(error);

  private fail(error: Error): void {
    this.watcher?.error(error);
    this.onerror?.(error);
  }

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      this.pending.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
      this.receive(line.replace(/\r$/, ''));
      if (this.closed) return;
    }
    const rest = chunk.subarray(start);
    this.pendingBytes += rest.length;
    this.pending.push(rest);
    if (this.pendingBytes > MAX_LINE_BYTES) {
      this.fail(new Error(`ReadBuffer exceeded maximum size of ${MAX_LINE_BYTES} bytes`));
      void this.close();
    }
  };

  private receive(line: string): void {
    if (line.trim() === '') return;
    const parsed = parseJson(line);
    if (parsed === undefined) return void this.write(PARSE_FAILURE);
    if (!Array.isArray(parsed.value)) {
      const refusal = this.accept(parsed.value);
      if (refusal) void this.write(refusal);
      return;
    }
    const items = parsed.value as unknown[];
    if (this.modern || !batchesAllowed(this.legacyVersion) || items.length === 0) {
      return void this.write(items.length === 0 ? rpcError(null, INVALID_REQUEST, 'Invalid Request: an empty batch') : batchRefusal(this.modern ? '2026-07-28' : this.legacyVersion));
    }
    const batch: Batch = { waiting: new Set(), answers: [] };
    const accepted: JSONRPCMessage[] = [];
    for (const item of items) {
      const checked = checkMessage(item);
      if ('error' in checked) {
        if (checked.error) batch.answers.push(checked.error);
      } else if ('method' in checked.message && checked.message.method === 'initialize') {
        batch.answers.push(rpcError(idOf(checked.message), INVALID_REQUEST, 'Invalid Request: initialize must not be part of a batch'));
      } else if ('method' in checked.message && 'id' in checked.message && !this.inFlight.claim(checked.message.id as RequestId)) {
        batch.answers.push(duplicateIdRefusal(checked.message.id as RequestId));
      } else {
        if ('method' in checked.message && 'id' in checked.message) batch.waiting.add(checked.message.id as RequestId);
        accepted.push(checked.message);
      }
    }
    if (batch.waiting.size > 0) this.batches.push(batch);
    else if (batch.answers.length > 0) void this.write(batch.answers);
    for (const message of accepted) this.onmessage?.(message);
  }

  /** Passes one message on; returns the error to answer instead, if any. */
  private accept(value: unknown): RpcError | undefined {
    const checked = checkMessage(value);
    if ('error' in checked) return checked.error;
    const message = checked.message;
    if ('method' in message && message.method === 'notifications/cancelled') this.forgetCancelled(message.params);
    if ('method' in message && 'id' in message) {
      if (isModernRequest(message)) this.modern = true;
      else if (message.method === 'initialize') this.legacyVersion = protocolVersionOf(message);
      else if (this.legacyVersion === undefined && !this.modern && !BEFORE_INITIALIZE.has(message.method)) {
        return rpcError(idOf(message), INVALID_REQUEST, NOT_INITIALIZED);
      }
      if (!this.inFlight.claim(message.id as RequestId)) return duplicateIdRefusal(message.id as RequestId);
    }
    this.onmessage?.(message);
    return undefined;
  }

  /** A cancelled request is never answered (the protocol says so): its batch must not wait for it. */
  private forgetCancelled(params: unknown): void {
    const id = (params as { requestId?: RequestId } | undefined)?.requestId;
    if (id !== undefined) this.inFlight.settle(id);
    const batch = id === undefined ? undefined : this.batches.find((b) => b.waiting.has(id));
    if (!batch || id === undefined) return;
    batch.waiting.delete(id);
    if (batch.waiting.size > 0) return;
    this.batches.splice(this.batches.indexOf(batch), 1);
    if (batch.answers.length > 0) void this.write(batch.answers);
  }

  private write(message: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}

function idOf(message: JSONRPCMessage): RequestId | null {
  return 'id' in message ? (message.id as RequestId) : null;
}

function protocolVersionOf(message: JSONRPCMessage): string {
  const params = 'params' in message ? (message.params as { protocolVersion?: unknown } | undefined) : undefined;
  return typeof params?.protocolVersion === 'string' ? params.protocolVersion : 'unknown';
}
