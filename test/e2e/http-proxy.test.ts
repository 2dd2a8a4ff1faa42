// The built server deployed the way operators run it: listening on every
// interface with a token, behind a reverse proxy that keeps the client's Host
// header (and adds X-Forwarded-*), reached by a real MCP client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callTool, textOf, type HttpServer } from '../support/mcp-clients.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { fetchWithHost, startHostKeepingProxy, type RunningProxy } from './support/host-keeping-proxy.js';

const TOKEN = 'proxy-test-token-0123456789abcdef';
const suite = httpServerForSuite({ token: TOKEN, args: ['--host', '0.0.0.0', '--allowed-host', 'mcp.example.test'] });
let server: HttpServer;
let proxy: RunningProxy;

beforeAll(async () => {
  server = suite.server;
  proxy = await startHostKeepingProxy(server.url);
});

afterAll(async () => {
  await proxy?.close();
});

/** A real MCP client that connects to the proxy and says it is talking to `host`. */
async function clientVia(host: string, token: string | undefined): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${proxy.port}/mcp`), {
    fetch: fetchWithHost(host),
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'dsh-proxy-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

test('the server says it listens on every interface', () => {
  expect(server.stderr()).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+\/mcp/);
});

test('an MCP client behind the proxy, Host kept as the public name in --allowed-host, runs a call', async () => {
  const { client, transport } = await clientVia(`mcp.example.test:${proxy.port}`, TOKEN);
  try {
    expect(textOf(await callTool(client, 'bash', { command: 'echo through the proxy', description: 'Say hello' }))).toBe('through the proxy');
  } finally {
    await transport.terminateSession();
    await client.close();
  }
  expect(proxy.forwardedHosts).toContain(`mcp.example.test:${proxy.port}`);
}, 60_000);

test('through the proxy, the token is still required: without it or with a wrong one, 401', async () => {
  await expect(clientVia('mcp.example.test', undefined)).rejects.toMatchObject({ code: 401 });
  await expect(clientVia('mcp.example.test', 'wrong-token-wrong-token-wrong')).rejects.toMatchObject({ code: 401 });
}, 60_000);

test('a Host that is neither loopback nor allowed is refused with 403 even with the token', async () => {
  await expect(clientVia('other.example.test', TOKEN)).rejects.toMatchObject({ code: 403 });
}, 60_000);

test('health endpoints answer through the proxy without a token, whatever the Host', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const reply = await fetchWithHost('10.1.2.3:8765')(`http://127.0.0.1:${proxy.port}${path}`);
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe(path === '/healthz' ? 'ok\n' : 'ready\n');
  }
}, 60_000);
