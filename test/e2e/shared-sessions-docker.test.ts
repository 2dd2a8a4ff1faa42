// Two `serve --http --container --shared-sessions` replicas behind nginx's
// round-robin (no affinity), one real MCP client: the session lives in the
// engine, so either replica serves each request, one SIGKILLed and started
// again loses nothing, one SIGTERMed leaves its sessions to the other, and
// the client's close removes the container (docs/shared-sessions.md).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LABELS } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { engine } from '../support/container-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { callTool, textOf } from '../support/mcp-clients.js';
import { describeBehindNginx, NEEDS_NGINX, startRoundRobinNginx, UPSTREAM_HOST, type RoundRobinProxy } from './support/round-robin-nginx.js';
import { foreignStatus, freePort, replicaDirs, startReplica as startServe, stopReplicas, type Replica, type ReplicaDirs } from './support/shared-replicas.js';

const TOKEN = 'shared-sessions-e2e-token-0123456789';
const OTHER_TOKEN = 'shared-sessions-e2e-other-9876543210';

const describeWithNginx = describeBehindNginx(describeWithEngine);

describeWithNginx(`shared sessions: two container replicas behind round-robin nginx${NEEDS_ENGINE}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  beforeAll(() => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${TOKEN}\nother:${OTHER_TOKEN}\n`);
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  /** Each replica's Prometheus exposition (`--metrics-port`), by its child process. */
  const metricsOf = new Map<Replica['child'], () => Promise<string>>();

  async function startReplica(port: number): Promise<Replica> {
    const metricsPort = await freePort();
    const args = ['--workspace', dirs.workspace, '--container', TEST_IMAGE, '--shared-sessions', '--metrics-port', String(metricsPort)];
    args.push('--token-file', dirs.tokenFile, '--allowed-host', UPSTREAM_HOST, '--reap-interval', '1', '--log-level', 'info', '--drain-timeout', '5');
    const replica = await startServe(port, args, dirs.env);
    metricsOf.set(replica.child, async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
    return replica;
  }

  /** A real SDK client of the proxy, with the agent's token. */
  async function connectThrough(proxy: RoundRobinProxy, name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  }

  const sessionContainers = async (sessionId: string) => engine.list([`${LABELS.managed}=1`, `${LABELS.session}=${sessionId}`]);

  it('serves one session from either replica through a SIGKILL and a SIGTERM, and removes its container when the client leaves', async () => {
    const [portA, portB, portProxy] = [await freePort(), await freePort(), await freePort()];
    let a = await startReplica(portA);
    const b = await startReplica(portB);
    let proxy: RoundRobinProxy | undefined;
    let client: Client | undefined;
    let sessionId: string | undefined;
    try {
      proxy = await startRoundRobinNginx(portProxy, [portA, portB]);
      let transport: StreamableHTTPClientTransport;
      ({ client, transport } = await connectThrough(proxy, 'shared-sessions-e2e'));
      const run = async (command: string) => textOf(await callTool(client!, 'bash', { command, description: 'Scripted step' }));

      const first = await run('echo 1 >> /tmp/steps; echo "$DSH_SESSION_ID $(cat /etc/hostname)"');
      const [id, hostname] = first.split(' ');
      sessionId = id;
      expect(sessionId).toMatch(/\S/);
      // Round-robin: these alternate between the replicas; every one sees the same container and its /tmp.
      for (let step = 2; step <= 6; step++) {
        expect(await run(`echo ${step} >> /tmp/steps; echo "$DSH_SESSION_ID $(cat /etc/hostname)"`)).toBe(`${sessionId} ${hostname}`);
      }
      expect(await run('tr "\\n" " " </tmp/steps')).toBe('1 2 3 4 5 6 ');
      expect(b.stderr() + a.stderr()).toMatch(/served here from now on \(opened on another replica\)/);

      // Another caller holding the session id is told it is unknown, on either replica.
      const sessionHeader = transport.sessionId!;
      for (let attempt = 0; attempt < 2; attempt++) expect(await foreignStatus(proxy.url, OTHER_TOKEN, sessionHeader)).toBe(404);

      // A dies without a word; B serves everything, and A started again serves the same session.
      a.child.kill('SIGKILL');
      await a.exited;
      expect(await run('echo 7 >> /tmp/steps; cat /tmp/steps | wc -l')).toBe('7');
      a = await startReplica(portA);
      for (let step = 8; step <= 11; step++) expect(await run(`echo ${step} >> /tmp/steps; echo $DSH_SESSION_ID`)).toBe(sessionId);
      expect(a.stderr()).toMatch(/served here from now on \(opened on another replica\)/);
      // Each replica counts what it took up and what it serves.
      expect(await metricsOf.get(a.child)!()).toMatch(/^dsh_sessions_adopted_total\{era="legacy"\} 1$/m);
      expect(await metricsOf.get(a.child)!()).toMatch(/^dsh_sessions_active 1$/m);

      // B is stopped as a rolling update stops it: it leaves the session to A.
      b.child.kill('SIGTERM');
      expect(await b.exited).toBe(0);
      expect((await sessionContainers(sessionId)).length).toBe(1);
      for (let step = 12; step <= 14; step++) expect(await run(`echo ${step} >> /tmp/steps; echo $DSH_SESSION_ID`)).toBe(sessionId);
      expect(await run('tr "\\n" " " </tmp/steps')).toBe('1 2 3 4 5 6 7 8 9 10 11 12 13 14 ');

      // The client ends the session: its container goes.
      await transport.terminateSession();
      await client.close();
      client = undefined;
      expect(await sessionContainers(sessionId)).toEqual([]);
    } finally {
      await client?.close().catch(() => undefined);
      await proxy?.stop();
      await stopReplicas([a, b]);
      // Shared containers outlive their servers: a failed run must not leave this one behind.
      if (sessionId !== undefined) for (const container of await sessionContainers(sessionId)) await engine.remove(container.id);
    }
  }, 180_000);

  it('keeps a background task running when every replica is SIGKILLed; a new replica reads all of it, its exit status, and goes on with its ids', async () => {
    const [portA, portB, portProxy] = [await freePort(), await freePort(), await freePort()];
    let a = await startReplica(portA);
    const b = await startReplica(portB);
    let proxy: RoundRobinProxy | undefined;
    let client: Client | undefined;
    let sessionId: string | undefined;
    try {
      proxy = await startRoundRobinNginx(portProxy, [portA, portB]);
      let transport: StreamableHTTPClientTransport;
      ({ client, transport } = await connectThrough(proxy, 'shared-sessions-tasks-e2e'));
      const call = async (tool: string, args: Record<string, unknown>) => textOf(await callTool(client!, tool, args));
      sessionId = await call('bash', { command: 'echo $DSH_SESSION_ID', description: 'Which session' });
      const count = 'for i in $(seq 1 40); do echo line $i; sleep 0.2; done; exit 7';
      expect(await call('bash', { command: count, description: 'Count slowly', run_in_background: true })).toBe('started background task bash-1');

      // Both replicas die without a word while it counts; a new one serves the session.
      a.child.kill('SIGKILL');
      b.child.kill('SIGKILL');
      await Promise.all([a.exited, b.exited]);
      a = await startReplica(portA);
      expect(await call('task_list', {})).toMatch(/^bash-1 \[bash\] (running|failed) — Count slowly$/);
      const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
      expect(await call('task_output', { task_id: 'bash-1', wait: true, timeout_ms: 60_000 })).toBe(`${lines}\n[status: failed, exit code: 7]`);
      expect(await call('bash', { command: 'echo again', description: 'Again', run_in_background: true })).toBe('started background task bash-2');

      await transport.terminateSession();
      await client.close();
      client = undefined;
      expect(await sessionContainers(sessionId)).toEqual([]);
    } finally {
      await client?.close().catch(() => undefined);
      await proxy?.stop();
      for (const replica of [a, b]) if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
      if (sessionId !== undefined) for (const container of await sessionContainers(sessionId)) await engine.remove(container.id);
    }
  }, 180_000);
});
