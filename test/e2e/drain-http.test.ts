// Stopping the HTTP server with calls in flight loses no answer: after
// SIGTERM, new sessions and calls get 503 with Retry-After, /readyz says
// draining, and the calls already running (a real SDK client's and a raw
// curl's) finish and deliver their answers before the server exits 0.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { callTool, processesWith, serverDirs, startHttpServer, textOf, uniqueMarker, waitUntil, type HttpServer } from '../support/mcp-clients.js';
import { survivors } from '../support/process-table.js';
import { initialize, INITIALIZED, request } from '../support/raw-legacy.js';

const TOKEN = 'drain-test-token-0123456789abcdef';
const cleanups: Array<() => void> = [];
const servers: HttpServer[] = [];
afterAll(async () => {
  for (const server of servers) if (server.process.exitCode === null) server.process.kill('SIGKILL');
  cleanups.forEach((cleanup) => cleanup());
});

async function start(args: string[] = []): Promise<{ server: HttpServer; workspace: string }> {
  const { root, workspace, dshHome, cleanup } = serverDirs();
  cleanups.push(cleanup);
  const config = path.join(root, 'info.yaml');
  writeFileSync(config, 'logLevel: info\n');
  const server = await startHttpServer({ workspace, dshHome, args: ['--config', config, ...args], env: { DSH_HTTP_TOKEN: TOKEN }, token: TOKEN });
  servers.push(server);
  return { server, workspace };
}

// The command says it started by a file: curl's own command line names the marker too.
const waitForGo = (marker: string) => `: > started-${marker}; while [ ! -e go ]; do sleep 0.05; done; echo late`;
const started = (workspace: string, marker: string) => existsSync(path.join(workspace, `started-${marker}`));
const bash = (command: string) => ({ command, description: 'Run a test command' });

/** `curl -si` with the token; returns status line, headers and body as one text. */
function curl(url: string, args: string[]): string {
  return execFileSync('curl', ['-sS', '-i', '-H', `authorization: Bearer ${TOKEN}`, ...args, url], { encoding: 'utf8' });
}

const jsonPost = ['-X', 'POST', '-H', 'content-type: application/json', '-H', 'accept: application/json, text/event-stream'];
const initializeCurl = JSON.stringify(initialize(1, LATEST_PROTOCOL_VERSION, 'curl'));

test('SIGTERM: the SDK client and curl get their answers; new sessions and calls get 503 + Retry-After; exit 0', async () => {
  const { server, workspace } = await start();
  const mcp = server.url.href;
  const { client } = await server.connect();
  const sdkMarker = `sdk${uniqueMarker()}`;
  const sdkCall = callTool(client, 'bash', bash(waitForGo(sdkMarker)));

  const opened = curl(mcp, [...jsonPost, '-d', initializeCurl]);
  const sessionId = /^mcp-session-id: (\S+)/im.exec(opened)?.[1];
  expect(sessionId).toBeDefined();
  curl(mcp, [...jsonPost, '-H', `mcp-session-id: ${sessionId}`, '-d', JSON.stringify(INITIALIZED)]);
  const curlMarker = `curl${uniqueMarker()}`;
  const call = JSON.stringify(request(2, 'tools/call', { name: 'bash', arguments: bash(waitForGo(curlMarker)) }));
  const curlCall = spawn('curl', ['-sS', '-N', '-H', `authorization: Bearer ${TOKEN}`, '-H', `mcp-session-id: ${sessionId}`, ...jsonPost, '-d', call, mcp]);
  let curlOut = '';
  curlCall.stdout.on('data', (chunk: Buffer) => (curlOut += chunk.toString('utf8')));
  const curlDone = new Promise<number | null>((resolve) => curlCall.once('exit', resolve));
  await waitUntil(() => started(workspace, sdkMarker) && started(workspace, curlMarker), 'both calls run');

  server.process.kill('SIGTERM');
  await waitUntil(() => server.stderr().includes('shutting down (SIGTERM)'), 'the drain starts');
  const refused = curl(mcp, [...jsonPost, '-d', initializeCurl]);
  expect(refused).toMatch(/^HTTP\/1\.1 503/);
  expect(refused).toMatch(/^retry-after: 5\r?$/im);
  expect(refused).toContain('the server is shutting down: it accepts no new sessions or calls; reconnect later');
  await expect(callTool(client, 'bash', bash('echo too late'))).rejects.toThrow(/503|shutting down/);
  expect(curl(server.url.origin + '/readyz', [])).toMatch(/^HTTP\/1\.1 503[\s\S]*not ready: draining: the server is shutting down\n$/);
  expect(curl(server.url.origin + '/healthz', [])).toMatch(/^HTTP\/1\.1 200[\s\S]*\nok\n$/);

  writeFileSync(path.join(workspace, 'go'), '');
  expect(textOf(await sdkCall)).toBe('late');
  expect(await curlDone).toBe(0);
  expect(curlOut).toMatch(/^data: .*"text":"late"/m);
  expect(await server.exited).toBe(0);
}, 90_000);

test('--drain-timeout 1: a call still running is cancelled and the SDK client gets that answer; exit 0, nothing left', async () => {
  const { server } = await start(['--drain-timeout', '1']);
  const { client } = await server.connect();
  const marker = `1000.${uniqueMarker()}`;
  const call = callTool(client, 'bash', bash(`sleep ${marker}`));
  await waitUntil(() => processesWith(marker).length > 0, 'the call runs');
  server.process.kill('SIGTERM');
  const result = await call;
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe('Error: tool call aborted');
  expect(await server.exited).toBe(0);
  expect(server.stderr()).toContain('drain: calls still running after 1 s (--drain-timeout): cancelling them');
  expect(await survivors(marker)).toEqual([]);
}, 60_000);

test('a second SIGTERM while draining exits at once, and no command is left running', async () => {
  const { server } = await start(['--drain-timeout', '600']);
  const { client } = await server.connect();
  const marker = `1000.${uniqueMarker()}`;
  void callTool(client, 'bash', bash(`sleep ${marker}`)).catch(() => undefined);
  await waitUntil(() => processesWith(marker).length > 0, 'the call runs');
  server.process.kill('SIGTERM');
  await waitUntil(() => server.stderr().includes('shutting down (SIGTERM)'), 'the drain starts');
  const second = Date.now();
  server.process.kill('SIGTERM');
  expect(await server.exited).toBe(1);
  expect(Date.now() - second).toBeLessThan(5000);
  expect(server.stderr()).toContain('SIGTERM again: exiting without waiting for calls or cleanup');
  expect(await survivors(marker)).toEqual([]);
}, 60_000);
