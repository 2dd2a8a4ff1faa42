// Over HTTP the client's trace also comes from the request's `traceparent` header (what an instrumented HTTP
// client sends with every request); `_meta.traceparent` of the call wins when both are there.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectClient } from '../support/mcp-clients.js';

const exporter = new InMemorySpanExporter();
const HEADER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HEADER_PARENT = '00f067aa0ba902b7';
const META_TRACE = '0af7651916cd43dd8448eb211c80319c';
const META_PARENT = 'b7ad6b7169203331';

let dir: string;
let host: DshHost;
let server: Awaited<ReturnType<typeof serveHttp>>;
let client: Client;

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-client-trace-http-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
  server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none' });
  const headers = { traceparent: `00-${HEADER_TRACE}-${HEADER_PARENT}-01` };
  ({ client } = await connectClient(new URL(server.url), undefined, { headers, name: 'traced-http' }));
});

afterAll(async () => {
  await client.close();
  await server.close();
  await host.dispose();
  trace.disable();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => exporter.reset());

const call = (meta?: Record<string, unknown>) =>
  client.request(
    { method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo traced', description: 'Run a test command' }, ...(meta ? { _meta: meta } : {}) } },
    CallToolResultSchema,
  );
const toolSpan = () => exporter.getFinishedSpans().find((s) => s.name === 'execute_tool bash');

test("the HTTP request's traceparent header is continued by the call's span", async () => {
  expect((await call()).isError).toBeFalsy();
  expect(toolSpan()!.spanContext().traceId).toBe(HEADER_TRACE);
  expect(toolSpan()!.parentSpanContext?.spanId).toBe(HEADER_PARENT);
});

test("the call's _meta.traceparent wins over the header", async () => {
  await call({ traceparent: `00-${META_TRACE}-${META_PARENT}-01` });
  expect(toolSpan()!.spanContext().traceId).toBe(META_TRACE);
  expect(toolSpan()!.parentSpanContext?.spanId).toBe(META_PARENT);
});
