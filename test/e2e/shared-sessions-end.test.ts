// How a shared session ends without its client closing it
// (docs/shared-sessions.md#a-stop-replica-by-replica): the last replica's
// SIGTERM ends it, unless `--leave-sessions` leaves it to a replica started
// later; and a session nobody touches for its idle time is ended by a
// replica's reaper without any request. Container mode: the same code paths
// as pods, at a fraction of the time.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sessionKey } from '../../src/providers/registry/session-registry.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { engine, sessionContainers } from '../support/container-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { callTool, textOf } from '../support/mcp-clients.js';
import { freePort, replicaDirs, startReplica, stopReplicas, type Replica, type ReplicaDirs } from './support/shared-replicas.js';
import { pollUntilAsync } from '../support/poll-async.js';

const TOKEN = 'shared-sessions-end-token-0123456789';

describeWithEngine(`shared sessions: the end of a session no client closed${NEEDS_ENGINE}`, () => {
  let dirs: ReplicaDirs;
  beforeAll(() => {
    ensureBuilt();
    dirs = replicaDirs(TOKEN);
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  async function start(extra: string[] = []): Promise<Replica & { url: URL }> {
    const port = await freePort();
    const args = ['--workspace', dirs.workspace, '--container', TEST_IMAGE, '--shared-sessions', '--token-file', dirs.tokenFile, '--log-level', 'info', '--drain-timeout', '5', ...extra];
    const replica = await startReplica(port, args, dirs.env);
    return { ...replica, url: new URL(`http://127.0.0.1:${port}/mcp`) };
  }

  /** A client of `url`: a new session, or `sessionId`'s again (no initialize: the SDK reconnects). */
  async function connect(url: URL, sessionId?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } }, ...(sessionId ? { sessionId } : {}) });
    const client = new Client({ name: 'shared-sessions-end-e2e', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  }
  const run = async (client: Client, command: string) => textOf(await callTool(client, 'bash', { command, description: 'Scripted step' }));
  /** The session's record: `<key>.json` in the replicas' record directory (docs/shared-sessions.md#registry). */
  const recordOf = (header: string) => path.join(dirs.tmp, `dsh-shared-sessions-${process.getuid!()}`, `${sessionKey(header)}.json`);
  /** Opens a session on `url`, leaves a file in its container, and answers with its ids. */
  async function openSession(url: URL): Promise<{ client: Client; header: string; sessionId: string; hostname: string }> {
    const { client, transport } = await connect(url);
    const [sessionId, hostname] = (await run(client, 'echo kept > /tmp/mark; echo "$DSH_SESSION_ID $(cat /etc/hostname)"')).split(' ');
    expect(await sessionContainers(sessionId!)).toHaveLength(1);
    expect(existsSync(recordOf(transport.sessionId!))).toBe(true);
    return { client, header: transport.sessionId!, sessionId: sessionId!, hostname: hostname! };
  }

  it("the last replica's SIGTERM ends its sessions; with --leave-sessions a replica started later serves them", async () => {
    const replicas: Replica[] = [];
    const sessionIds: string[] = [];
    try {
      // The last (only) replica stops: nobody would be left to reap the session, so it ends it.
      const last = await start();
      replicas.push(last);
      const ended = await openSession(last.url);
      sessionIds.push(ended.sessionId);
      await ended.client.close();
      last.child.kill('SIGTERM');
      expect(await last.exited).toBe(0);
      expect(last.stderr()).toContain(`shared session ${ended.sessionId} ended (the last replica stopped)`);
      expect(await sessionContainers(ended.sessionId)).toEqual([]);
      expect(existsSync(recordOf(ended.header))).toBe(false);

      // The same stop with --leave-sessions: the container and the record stay for a later replica.
      const leaving = await start(['--leave-sessions']);
      replicas.push(leaving);
      const left = await openSession(leaving.url);
      sessionIds.push(left.sessionId);
      await left.client.close();
      leaving.child.kill('SIGTERM');
      expect(await leaving.exited).toBe(0);
      expect(leaving.stderr()).toMatch(/shared sessions: left to the other replicas/);
      expect(await sessionContainers(left.sessionId)).toHaveLength(1);
      expect(existsSync(recordOf(left.header))).toBe(true);

      // A replica started afterwards adopts it whole (same container, same /tmp), and the client's close ends it.
      const next = await start();
      replicas.push(next);
      const again = await connect(next.url, left.header);
      expect(await run(again.client, 'cat /tmp/mark; echo "$DSH_SESSION_ID $(cat /etc/hostname)"')).toBe(`kept\n${left.sessionId} ${left.hostname}`);
      expect(next.stderr()).toMatch(/served here from now on \(opened on another replica\)/);
      await again.transport.terminateSession();
      await again.client.close();
      expect(await sessionContainers(left.sessionId)).toEqual([]);
      expect(existsSync(recordOf(left.header))).toBe(false);
    } finally {
      await stopReplicas(replicas);
      // Shared containers outlive their servers: a failed run must not leave one behind.
      for (const id of sessionIds) for (const container of await sessionContainers(id)) await engine.remove(container);
    }
  }, 120_000);

  it('a session untouched for its idle time is ended by the reaper, with no request', async () => {
    const replica = await start(['--idle-timeout', '2', '--reap-interval', '0.5']);
    let sessionId: string | undefined;
    try {
      // Every use of the session comes after this: its end cannot come before this plus its idle time.
      const beforeFirstUse = performance.now();
      const session = await openSession(replica.url);
      sessionId = session.sessionId;
      // The client goes quiet without closing the session: only the record's idle time can end it.
      await session.client.close();
      await pollUntilAsync(
        async () => (await sessionContainers(session.sessionId)).length === 0 && !existsSync(recordOf(session.header)),
        'the idle session has no container and no record',
        20_000,
      );
      // Not before its idle time: the close above ended nothing. (Timed from before the first use, as a
      // late-running poll on a loaded machine may start well after the last one; 10 ms for the record's mtime rounding.)
      expect(performance.now() - beforeFirstUse).toBeGreaterThanOrEqual(1_990);
      // Logged once its container is gone: the line may reach the pipe a moment after the poll saw that.
      const ended = `shared session ${session.sessionId} ended (idle, or past its lifetime)`;
      await pollUntilAsync(async () => replica.stderr().includes(ended), 'the end is logged', 10_000);
      expect(replica.stderr()).toContain(ended);
    } finally {
      await stopReplicas([replica]);
      if (sessionId !== undefined) for (const container of await sessionContainers(sessionId)) await engine.remove(container);
    }
  }, 60_000);
});
