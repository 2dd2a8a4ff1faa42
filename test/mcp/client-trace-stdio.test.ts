// A client's W3C trace context (`params._meta.traceparent` of tools/call) is continued by the call's span, with the
// SDK's in-memory exporter; a malformed one is ignored (a fresh trace), never an error.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { parseTraceParent } from '../../src/providers/observability/client-trace.js';
import { connectInProcess } from '../support/in-process-client.js';

const exporter = new InMemorySpanExporter();
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

let dir: string;
let host: DshHost;
let connection: McpConnection;
let client: Client;

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-client-trace-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
  ({ connection, client } = await connectInProcess(host, { cwd: dir, name: 'traced' }));
});

afterAll(async () => {
  await client.close();
  await connection.close();
  await host.dispose();
  trace.disable();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => exporter.reset());

const callWith = (traceparent: unknown) =>
  client.request(
    { method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo traced', description: 'Run a test command' }, _meta: { traceparent } } },
    CallToolResultSchema,
  );

test("the call's span continues the client's trace, under the client's span", async () => {
  await callWith(`00-${TRACE}-${PARENT}-01`);
  const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool bash');
  expect(span).toBeDefined();
  expect(span!.spanContext().traceId).toBe(TRACE);
  expect(span!.parentSpanContext?.spanId).toBe(PARENT);
  expect(span!.parentSpanContext?.isRemote).toBe(true);
});

test('attack: a malformed traceparent is ignored: the call runs and its span starts a trace of its own', async () => {
  const result = await callWith(`00-${'0'.repeat(32)}-${PARENT}-01`);
  expect(result.isError).toBeFalsy();
  const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool bash');
  expect(span!.spanContext().traceId).not.toBe('0'.repeat(32));
  expect(span!.parentSpanContext).toBeUndefined();
});

test('parseTraceParent accepts the W3C form only', () => {
  expect(parseTraceParent(`00-${TRACE}-${PARENT}-01`)).toEqual({ traceId: TRACE, spanId: PARENT, traceFlags: 1 });
  expect(parseTraceParent(`01-${TRACE}-${PARENT}-00-extra`)).toEqual({ traceId: TRACE, spanId: PARENT, traceFlags: 0 });
  for (const bad of [`ff-${TRACE}-${PARENT}-01`, `00-${TRACE}-${PARENT}-01-extra`, `00-${TRACE}-${'0'.repeat(16)}-01`, `00-${TRACE.toUpperCase()}-${PARENT}-01`, 42, undefined, 'x'.repeat(600)]) {
    expect(parseTraceParent(bad)).toBeUndefined();
  }
});
