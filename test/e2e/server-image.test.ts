// The container image recipe of docs/operations.md, built exactly as written
// from the packed tarball without a registry (the base is a `docker import`
// of this machine's node, bash and procps; `app/` is the install step's
// result made from this checkout's own node_modules, so no npm cache is
// needed: see app-from-checkout.ts), run with `docker run -p`: the
// health check turns healthy, an MCP client makes a call as the non-root
// user, and `docker stop` drains it to exit code 0.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensureBuilt, ROOT } from '../support/built-server.js';
import { appFromCheckout } from './support/app-from-checkout.js';
import { callTool, textOf } from '../support/mcp-clients.js';
import { pollUntil } from '../support/process-table.js';
import { describeWithEngine, NEEDS_ENGINE } from '../support/container-engine.js';

const BASE = 'dsh-tools-node-base:test';
const IMAGE = 'dsh-tools-server:test';
const TOKEN = 'image-test-token-0123456789abcdef';
const NAME = `dsh-server-image-test-${process.pid}`;

/** The Dockerfile block of docs/operations.md, between its markers. */
function documentedDockerfile(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const block = /<!-- dockerfile:begin[^>]*-->\s*```dockerfile\n([\s\S]*?)```\s*<!-- dockerfile:end -->/.exec(doc);
  if (!block) throw new Error('docs/operations.md has no Dockerfile between the dockerfile:begin/end markers');
  return block[1]!;
}

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describeWithEngine(`the documented server image${NEEDS_ENGINE}`, () => {
  let context: string;
  let origin: string;

  beforeAll(async () => {
    ensureBuilt();
    execFileSync('bash', [path.join(ROOT, 'test/support/node-base-image.sh'), BASE], { stdio: 'ignore' });
    context = mkdtempSync(path.join(os.tmpdir(), 'dsh-image-'));
    execFileSync('npm', ['pack', '--pack-destination', context], { cwd: ROOT, stdio: 'ignore' });
    const tarball = readdirSync(context).find((name) => name.endsWith('.tgz'))!;
    // The documented install step's result, from this checkout's install: no registry and no npm cache.
    appFromCheckout(ROOT, path.join(context, tarball), path.join(context, 'app'));
    rmSync(path.join(context, tarball));
    writeFileSync(path.join(context, 'Dockerfile'), documentedDockerfile());
    docker('build', '--build-arg', `NODE_IMAGE=${BASE}`, '-t', IMAGE, context);
    docker('run', '-d', '--init', '--name', NAME, '-p', '127.0.0.1::8765', '-e', `DSH_HTTP_TOKEN=${TOKEN}`, IMAGE);
    origin = `http://${docker('port', NAME, '8765').split('\n')[0]}`;
    // No event says "listening" from outside the container: poll the documented probe, bounded.
    const up = await (async () => {
      for (let tries = 0; tries < 240; tries++) {
        // The published port accepts before the server listens: a request may hang, so each try is bounded.
        const ok = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) }).then((reply) => reply.ok, () => false);
        if (ok) return true;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return false;
    })();
    if (!up) throw new Error(`the server in the container never answered /healthz:\n${spawnSync('docker', ['logs', NAME], { encoding: 'utf8' }).stderr}`);
  }, 900_000);

  afterAll(() => {
    try {
      docker('rm', '-f', NAME);
    } catch {
      // Never started.
    }
    if (context) rmSync(context, { recursive: true, force: true });
  });

  it('answers /healthz and /readyz through the published port, and the HEALTHCHECK turns healthy', async () => {
    expect(await (await fetch(`${origin}/healthz`)).text()).toBe('ok\n');
    const ready = await fetch(`${origin}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
    const healthy = await pollUntil(() => docker('inspect', '--format', '{{.State.Health.Status}}', NAME) === 'healthy', 90_000, 1000);
    expect(healthy).toBe(true);
  }, 120_000);

  it('runs an MCP call as the non-root user in /workspace, with bash and procps', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    const client = new Client({ name: 'dsh-image-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await callTool(client, 'bash', { command: 'id -un; pwd; ps -o comm= -p $$; true', description: 'Who and where' });
      expect(textOf(result)).toBe('node\n/workspace\nbash');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    // Without the token: 401, even through the published port.
    const refused = await fetch(`${origin}/mcp`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(401);
  }, 120_000);

  it('docker stop drains the server: exit code 0', () => {
    docker('stop', '-t', '40', NAME);
    expect(docker('inspect', '--format', '{{.State.ExitCode}}', NAME)).toBe('0');
    // The server logs to stderr.
    expect(spawnSync('docker', ['logs', NAME], { encoding: 'utf8' }).stderr).toContain('listening on http://0.0.0.0:8765/mcp');
  }, 120_000);
});
