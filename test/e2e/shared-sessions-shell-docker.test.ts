// The persistent shell of a shared session (docs/shared-sessions.md#the-persistent-shell):
// two `serve --http --container --shared-sessions --shell both` replicas behind
// round-robin nginx drive one shell in the session's container; its cwd, an
// export and a function outlive the SIGKILL of the replica that started it, a
// command left running by a replica that dies is killed, a SIGTERM ends
// nothing, and the client's close removes the container.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LABELS } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { engine } from '../support/container-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { callTool, textOf } from '../support/mcp-clients.js';
import { describeBehindNginx, NEEDS_NGINX, startRoundRobinNginx, UPSTREAM_HOST, type RoundRobinProxy } from './support/round-robin-nginx.js';
import { persistentOn, postPersistent, shellDriver } from './support/shared-shell-calls.js';
import { freePort, replicaDirs, startReplica as startServe, stopReplicas, type Replica, type ReplicaDirs } from './support/shared-replicas.js';
import { pollUntilAsync } from '../support/poll-async.js';

const TOKEN = 'shared-shell-e2e-token-0123456789';

const describeWithNginx = describeBehindNginx(describeWithEngine);

describeWithNginx(`shared sessions: one persistent shell for every replica${NEEDS_ENGINE}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  beforeAll(() => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${TOKEN}\n`);
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  const startReplica = (port: number): Promise<Replica> =>
    startServe(
      port,
      ['--workspace', dirs.workspace, '--container', TEST_IMAGE, '--shared-sessions', '--shell', 'both', '--token-file', dirs.tokenFile, '--allowed-host', UPSTREAM_HOST, '--log-level', 'info'],
      dirs.env,
    );

  const sessionContainers = async (sessionId: string) => engine.list([`${LABELS.managed}=1`, `${LABELS.session}=${sessionId}`]);

  it('keeps the cwd, an export and a function through the SIGKILL of the replica that started the shell, on both replicas', async () => {
    const [portA, portB, portProxy] = [await freePort(), await freePort(), await freePort()];
    const replicas: Record<number, Replica> = {};
    replicas[portA] = await startReplica(portA);
    replicas[portB] = await startReplica(portB);
    let proxy: RoundRobinProxy | undefined;
    let client: Client | undefined;
    let sessionId: string | undefined;
    try {
      proxy = await startRoundRobinNginx(portProxy, [portA, portB]);
      const transport = new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
      client = new Client({ name: 'shared-shell-e2e', version: '1.0.0' });
      await client.connect(transport);
      const shell = async (command: string) => textOf(await callTool(client!, 'bash_persistent', { command, description: 'Shell step' }));
      const oneShot = async (command: string) => textOf(await callTool(client!, 'bash', { command, description: 'One-shot step' }));
      sessionId = await oneShot('echo $DSH_SESSION_ID');
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': transport.protocolVersion! };
      const shellOn = (port: number, command: string) => persistentOn(port, headers, command);
      const driver = () => shellDriver(dirs.tmp);
      const pidOf = (port: number) => replicas[port]!.child.pid;

      await shell('mkdir -p /tmp/w/sub && cd /tmp/w/sub && export STEP_VAR=kept && greet() { echo "hi $1"; }');
      const starterPort = driver()!.pid === pidOf(portA) ? portA : portB;
      const otherPort = starterPort === portA ? portB : portA;
      const state = 'echo "$PWD $STEP_VAR $(greet you)"';
      // Each replica takes the shell over from the other in turn.
      for (const port of [otherPort, starterPort, otherPort, starterPort]) {
        expect(await shellOn(port, state)).toBe('/tmp/w/sub kept hi you');
        expect(driver()!.pid).toBe(pidOf(port));
      }

      // The replica that started the shell dies without a word, and starts again.
      replicas[starterPort]!.child.kill('SIGKILL');
      await replicas[starterPort]!.exited;
      expect(await shellOn(otherPort, state)).toBe('/tmp/w/sub kept hi you');
      replicas[starterPort] = await startReplica(starterPort);
      for (const port of [starterPort, otherPort, starterPort]) expect(await shellOn(port, state)).toBe('/tmp/w/sub kept hi you');
      for (let step = 0; step < 2; step++) expect(await shell(state)).toBe('/tmp/w/sub kept hi you');

      // A command waiting for input on one replica is fed through the other.
      expect(await shellOn(starterPort, 'read -r -p "name? " NAME; echo "got $NAME"')).toMatch(/^name\? \n?\[waiting for input: /);
      expect(await shellOn(otherPort, 'world')).toBe('got world');
      expect(await shellOn(starterPort, 'echo "$NAME $(greet you)"')).toBe('world hi you');

      // A replica dies while the shell runs a command for it: the command is killed (the rest of its line too), the shell's state stays.
      const left = postPersistent(starterPort, headers, 'cd /tmp/w && touch started && sleep 300; touch finished').catch(() => 'dropped');
      await pollUntilAsync(async () => (await oneShot('test -e /tmp/w/started && echo yes || echo no')) === 'yes', 'the shell runs the command', 20_000);
      expect(driver()).toEqual({ pid: pidOf(starterPort), busy: true });
      replicas[starterPort]!.child.kill('SIGKILL');
      await replicas[starterPort]!.exited;
      await left;
      expect(await shellOn(otherPort, state)).toBe('/tmp/w kept hi you');
      expect(await oneShot('ls /tmp/w; grep -lx sleep /proc/[0-9]*/comm 2>/dev/null | wc -l')).toBe('started\nsub\n0');
      replicas[starterPort] = await startReplica(starterPort);
      expect(await shellOn(starterPort, 'cd sub && echo "$PWD $(greet again)"; cd ..')).toBe('/tmp/w/sub hi again');

      // A rolling update's SIGTERM lets go of the shell: the other replica goes on with it.
      replicas[otherPort]!.child.kill('SIGTERM');
      expect(await replicas[otherPort]!.exited).toBe(0);
      expect(await shellOn(starterPort, state)).toBe('/tmp/w kept hi you');
      replicas[otherPort] = await startReplica(otherPort);
      expect(await shellOn(otherPort, state)).toBe('/tmp/w kept hi you');

      // `restart` discards the shared shell: a fresh one in the workspace, whichever replica serves next.
      expect(textOf(await callTool(client, 'bash_persistent', { command: 'echo "${STEP_VAR:-none}"', description: 'Restart', restart: true }))).toMatch(/none/);
      for (const port of [portA, portB]) expect(await shellOn(port, 'echo "$PWD ${STEP_VAR:-none}"')).toBe(`${dirs.workspace} none`);

      await transport.terminateSession();
      await client.close();
      client = undefined;
      expect(await sessionContainers(sessionId)).toEqual([]);
    } finally {
      await client?.close().catch(() => undefined);
      await proxy?.stop();
      await stopReplicas(Object.values(replicas));
      if (sessionId !== undefined) for (const container of await sessionContainers(sessionId)) await engine.remove(container.id);
    }
  }, 120_000);
});
