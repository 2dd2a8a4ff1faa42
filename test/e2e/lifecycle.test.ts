import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt } from '../support/built-server.js';
import { isAlive, processesWith, startStdioServer, tempDir, textOf, uniqueMarker, waitUntil } from '../support/mcp-clients.js';

let root: string;
let cleanup: () => void;

beforeAll(() => {
  ensureBuilt();
  ({ dir: root, cleanup } = tempDir());
}, 180_000);

afterAll(() => cleanup?.());

test('the server exits when the client disconnects and leaves no process behind', async () => {
  const workspace = path.join(root, 'disconnect');
  mkdirSync(workspace);
  // Also exercises --config: logLevel info makes the shutdown reason visible on stderr.
  const config = path.join(root, 'disconnect.yaml');
  writeFileSync(config, 'logLevel: info\n');
  const server = await startStdioServer({ workspace, dshHome: path.join(root, 'home'), args: ['--config', config] });
  const marker = `1000.${uniqueMarker()}`;
  try {
    const started = await server.call('bash', { command: `sleep ${marker}`, description: 'Sleep in the background', run_in_background: true });
    expect(textOf(started)).toMatch(/^started background task \S+$/);
    await waitUntil(() => processesWith(marker).length > 0, `sleep ${marker} runs`);
  } finally {
    await server.close();
  }
  await waitUntil(() => !isAlive(server.pid), 'the server process exits');
  expect(server.stderr()).toContain('shutting down (client disconnected)');
  expect(processesWith(marker)).toEqual([]);
}, 60_000);

test('persistent shell over MCP keeps cd between calls; SIGTERM disposes its jobs and exits', async () => {
  const workspace = path.join(root, 'persistent');
  mkdirSync(path.join(workspace, 'sub'), { recursive: true });
  const server = await startStdioServer({
    workspace,
    dshHome: path.join(root, 'home'),
    args: ['--shell', 'persistent'],
  });
  const marker = `1000.${uniqueMarker()}`;
  try {
    const run = (command: string) => server.call('bash', { command, description: 'Run in the persistent shell' });
    const { tools } = await server.client.listTools();
    expect(tools.find((tool) => tool.name === 'bash')?.inputSchema.type).toBe('object');

    expect((await run('cd sub')).isError).toBeFalsy();
    expect(textOf(await run('pwd'))).toBe(path.join(workspace, 'sub'));
    const failed = await run('false');
    expect(textOf(failed).split('\n').pop()).toBe('[exit code: 1]');

    // A shell job of the session's shell must die with the server.
    await run(`sleep ${marker} &`);
    await waitUntil(() => processesWith(marker).length > 0, `sleep ${marker} runs`);

    process.kill(server.pid, 'SIGTERM');
    await waitUntil(() => !isAlive(server.pid), 'the server process exits after SIGTERM');
    expect(processesWith(marker)).toEqual([]);
  } finally {
    await server.close();
  }
}, 60_000);
