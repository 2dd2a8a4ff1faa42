import type { Readable, Writable } from 'node:stream';
import type { InitializeRequest, JSONRPCMessage, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import type { DshHost } from '../container/dsh-host.js';
import { TaskRuntime } from '../providers/tasks/task-runtime.js';
import { taskCapabilitiesFor } from './tasks/task-capabilities.js';
import { SERVER_INFO, serverCapabilities, serverInstructions } from './sessions/server-info.js';

/*
 * The stdio server answers the client's first message, `initialize`, while
 * the MCP SDK (zod, ajv: most of start-up) is still loading: the answer needs
 * only the prompt sections and capabilities. The SDK's server is then handed
 * the same request (under a private id, its reply dropped) so it knows the
 * client as if it had answered itself. Anything else comes first, or a line
 * that is not a well-formed initialize, and the SDK answers as always.
 */

/** The protocol versions the SDK's server accepts, newest first (a test keeps them equal to the SDK's). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** An initialize request is far smaller; a longer first line is left to the SDK's transport and its limit. */
const FIRST_LINE_LIMIT = 64 * 1024;

/** The id the request is handed to the SDK under, so its reply can never be taken for a client's. */
const REPLAY_ID = 'dsh-tools:initialize-answered-early';

type InitializeMessage = InitializeRequest & { jsonrpc: '2.0'; id: RequestId };

/**
 * Reads stdin up to the first newline; answers it on stdout when it is an
 * initialize request and returns that request; puts every byte not
 * consumed back on stdin. Resolves without a request when stdin ends first.
 */
export async function answerInitializeEarly(stdin: Readable, stdout: Writable, host: DshHost): Promise<InitializeMessage | undefined> {
  const line = await takeFirstLine(stdin);
  const request = line === undefined ? undefined : asInitializeRequest(line.toString('utf8'));
  if (request === undefined) {
    if (line !== undefined) stdin.unshift(line);
    return undefined;
  }
  stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: initializeResult(request, host) })}\n`);
  return request;
}

/** What the SDK's server answers to `request` (see its `_oninitialize`). */
export function initializeResult(request: InitializeRequest, host: DshHost): Record<string, unknown> {
  const requested = request.params.protocolVersion;
  const instructions = serverInstructions(host);
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0],
    capabilities: { ...serverCapabilities(), ...taskCapabilitiesFor(request.params.capabilities, host.isBound(TaskRuntime)) },
    serverInfo: SERVER_INFO,
    ...(instructions !== undefined ? { instructions } : {}),
  };
}

/**
 * The SDK's stdio transport, which first delivers the request answered early
 * (under a private id) and drops the SDK's reply to it.
 */
export class ReplayingTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly inner: Transport,
    private readonly answered: InitializeMessage,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
  }

  async start(): Promise<void> {
    await this.inner.start();
    this.onmessage?.({ ...this.answered, id: REPLAY_ID });
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('id' in message && message.id === REPLAY_ID) {
      // Only a client capability shape the SDK refuses gets here: the session then works without them.
      if ('error' in message) this.onerror?.(new Error(`the SDK refused the initialize answered early: ${message.error.message}`));
      return Promise.resolve();
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The first line with its newline; undefined when stdin ends or fails first, or the line is too long. */
function takeFirstLine(stdin: Readable): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (line: Buffer | undefined, rest: Buffer | undefined) => {
      stdin.off('readable', onReadable);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      if (rest !== undefined && rest.length > 0) stdin.unshift(rest);
      resolve(line);
    };
    const onEnd = () => finish(undefined, undefined);
    const onReadable = () => {
      for (let chunk = stdin.read() as Buffer | null; chunk !== null; chunk = stdin.read() as Buffer | null) {
        const newline = chunk.indexOf(0x0a);
        if (newline >= 0) {
          chunks.push(chunk.subarray(0, newline + 1));
          return finish(Buffer.concat(chunks), chunk.subarray(newline + 1));
        }
        chunks.push(chunk);
        size += chunk.length;
        if (size > FIRST_LINE_LIMIT) return finish(undefined, Buffer.concat(chunks));
      }
    };
    stdin.on('readable', onReadable);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message when it is an initialize request the SDK's server would accept as well. */
function asInitializeRequest(line: string): InitializeMessage | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize') return undefined;
  // The SDK refuses a request with any other top-level key.
  if (Object.keys(message).some((key) => !['jsonrpc', 'id', 'method', 'params'].includes(key))) return undefined;
  const id = message.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  const params = message.params;
  if (!isRecord(params) || typeof params.protocolVersion !== 'string' || !isRecord(params.capabilities)) return undefined;
  const client = params.clientInfo;
  if (!isRecord(client) || typeof client.name !== 'string' || typeof client.version !== 'string') return undefined;
  return message as InitializeMessage;
}
