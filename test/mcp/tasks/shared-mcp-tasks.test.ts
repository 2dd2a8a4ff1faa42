// MCP tasks on any replica (docs/shared-sessions.md#mcp-tasks): two or three HTTP servers over
// container hosts with shared sessions, one session registry (files in a temporary directory) and
// the real engine. A task-augmented call on A is read, waited for and cancelled on B after A is
// gone, with the same task id, its real status and its whole result; a replica started afterwards
// (C, as A restarted would be) shows the same kept result; another caller reads the id as unknown.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { containerEnvironment, createHost, type DshHost } from '../../../src/index.js';
import { resolveHttpToken, type HttpToken } from '../../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../../src/mcp/http-server.js';
import { SessionContainersToken } from '../../../src/providers/exec/engine/session-containers.js';
import { listSharedContainers } from '../../../src/providers/exec/engine/shared-containers.js';
import { mcpTaskRecordName } from '../../../src/providers/tasks/mcp-task-store.js';
import { FileSessionRegistry } from '../../../src/providers/registry/file-session-registry.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../support/container-engine.js';
import { handleIn } from '../../support/modern-client.js';
import type { RawReply } from '../../support/raw-http.js';
import { INITIALIZED, request, type Message } from '../../support/raw-legacy.js';
import { answerIn, postAs } from '../support/legacy-replica-requests.js';
import { bashParams, callText, httpDriver, pollUntilDone, resultOf, taskNotFound, TASK_ID_SHAPE } from '../../support/raw-modern.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
const LEGACY = '2025-11-25';
const COUNT = 'for i in $(seq 1 20); do echo line $i; sleep 0.05; done; echo oops >&2; exit 3';
const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');

interface Replica {
  readonly host: DshHost;
  readonly server: RunningHttpServer;
  readonly url: URL;
}

describeWithEngine(`MCP tasks on any replica${NEEDS_ENGINE}`, () => {
  let root: string;
  let auth: HttpToken;
  let registry: FileSessionRegistry;
  const replicas: Replica[] = [];

  const replica = async (): Promise<Replica> => {
    const host = await createHost(...containerEnvironment({ workspace: root, sharedSessions: true, container: { image: TEST_IMAGE, channel: true }, executor: { graceMs: 300 } }));
    const server = await serveHttp(host, { workspace: root, port: 0, auth, registry });
    const made = { host, server, url: new URL(server.url) };
    replicas.push(made);
    return made;
  };
  /** A replica goes away as a killed one would for its clients: its server and its host, nothing ended. */
  const gone = async (made: Replica): Promise<void> => {
    await made.server.close();
    await made.host.dispose();
  };

  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-smt-')));
    const tokens = path.join(root, 'tokens');
    writeFileSync(tokens, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
    auth = resolveHttpToken({ tokenFile: tokens, env: {} });
    registry = new FileSessionRegistry(path.join(root, 'records'));
  });
  afterAll(async () => {
    // Every session the tests opened is recorded: its sandbox goes, whichever test failed.
    const last = await replica();
    await Promise.all([...(await registry.liveSessionIds())].map((id) => last.host.get(SessionContainersToken).end(id)));
    await Promise.allSettled(replicas.map((made) => gone(made)));
    rmSync(root, { recursive: true, force: true });
  });

  describe('2026-07-28 (io.modelcontextprotocol/tasks)', () => {
    it('a task made on A is polled to its whole result on B after A is gone, and C reads the same kept result', async () => {
      const a = await replica();
      const b = await replica();
      const created = resultOf(await httpDriver(a.url, ALICE).request('tools/call', bashParams(`echo "id=$DSH_SESSION_ID"; ${COUNT}`, { run_in_background: true })));
      expect(created.resultType).toBe('task');
      const taskId = String(created.taskId);
      expect(taskId).toMatch(TASK_ID_SHAPE);
      const handle = handleIn(callText(created));
      expect(handle).toBeDefined();
      await gone(a);

      // Another caller, with the real id: exactly an unknown id's answer.
      expect((await httpDriver(b.url, BOB).request('tasks/get', { taskId })).error).toEqual(taskNotFound(taskId));
      const done = await pollUntilDone(httpDriver(b.url, ALICE), taskId);
      expect(done).toMatchObject({ taskId, status: 'completed', statusMessage: 'exit code: 3' });
      const text = callText(done.result);
      const sessionId = /^id=(\S+)\n/.exec(text)?.[1];
      expect(sessionId).toBeDefined();
      // The whole output, its status, and the handle notice the call that minted the handle carried.
      expect(text).toBe(`id=${sessionId}\n${LINES}\n[stderr]\noops\n[status: failed, exit code: 3]\n\n[session: ${handle} — it keeps this call's shell and background tasks; pass "session": "${handle}" to later calls to use them]`);
      expect(callText(resultOf(await httpDriver(b.url, ALICE).request('tasks/get', { taskId })).result)).toBe(text);
      // What the replicas recorded: named by hashes, holding no task id, no handle, no output.
      const [container] = await listSharedContainers(b.host.get(SessionContainersToken).engine, sessionId!);
      const records = path.join(container!.dir, 'mcp-tasks');
      expect(readdirSync(records).sort()).toEqual([`${mcpTaskRecordName(taskId, 'result')}.json`, `${mcpTaskRecordName(taskId, 'task')}.json`]);
      const recorded = readdirSync(records).map((name) => readFileSync(path.join(records, name), 'utf8')).join('\n');
      for (const secret of [taskId, taskId.slice(6), handle!, handle!.slice(6), 'line 1', 'oops']) expect(recorded).not.toContain(secret);

      // A replica that never saw the task (A started again) reads the same result: the first read consumed nothing it needs.
      const c = await replica();
      const again = resultOf(await httpDriver(c.url, ALICE).request('tasks/get', { taskId }));
      expect(again).toMatchObject({ taskId, status: 'completed' });
      expect(callText(again.result)).toBe(text);
      expect((await httpDriver(c.url, BOB).request('tasks/get', { taskId })).error).toEqual(taskNotFound(taskId));
      // The model's own reads go on from where the result read ended.
      expect(callText(resultOf(await httpDriver(c.url, ALICE).request('tools/call', { name: 'task_output', arguments: { task_id: 'bash-1', session: handle } }, { declare: false })))).toBe(
        '(no new output)\n[status: failed, exit code: 3]',
      );
    }, 120_000);

    it('tasks/cancel on B stops a task A started, and its status reads cancelled', async () => {
      const a = await replica();
      const b = await replica();
      const created = resultOf(await httpDriver(a.url, ALICE).request('tools/call', bashParams('echo "id=$DSH_SESSION_ID"; exec sleep 120', { run_in_background: true })));
      const taskId = String(created.taskId);
      await gone(a);
      const alice = httpDriver(b.url, ALICE);
      expect(resultOf(await alice.request('tasks/get', { taskId })).status).toBe('working');
      expect((await httpDriver(b.url, BOB).request('tasks/cancel', { taskId })).error).toEqual(taskNotFound(taskId));
      // Acknowledged once the process is gone (an empty result besides the envelope's `_meta`).
      expect(resultOf(await alice.request('tasks/cancel', { taskId }))).toMatchObject({ resultType: 'complete' });
      const after = resultOf(await alice.request('tasks/get', { taskId }));
      expect(after.status).toBe('cancelled');
      const handle = handleIn(callText(created))!;
      expect(handle).toBeDefined();
      const listed = callText(resultOf(await alice.request('tools/call', { name: 'task_list', arguments: { session: handle } }, { declare: false })));
      expect(listed).toMatch(/^bash-1 \[bash\] killed/);
      const output = callText(resultOf(await alice.request('tools/call', { name: 'task_output', arguments: { task_id: 'bash-1', session: handle } }, { declare: false })));
      expect(output).toMatch(/^id=\S+\n\[status: killed, signal: SIG(TERM|KILL)\]$/);
    }, 120_000);
  });

  describe('2025-11-25 (an adopted Mcp-Session-Id)', () => {
    const post = (made: Replica, token: string, body: Message, id?: string): Promise<RawReply> =>
      postAs(made.url, token, body, id === undefined ? undefined : { id, version: LEGACY });
    const answer = async (made: Replica, token: string, body: Message, id: string): Promise<Message> => answerIn(await post(made, token, body, id));
    const open = async (made: Replica): Promise<string> => {
      const reply = await post(made, ALICE, request(1, 'initialize', { protocolVersion: LEGACY, capabilities: { tasks: {} }, clientInfo: { name: 'shared-tasks', version: '1' } }));
      const id = reply.headers['mcp-session-id'];
      if (typeof id !== 'string') throw new Error(`no session id in ${reply.body}`);
      await post(made, ALICE, INITIALIZED, id);
      return id;
    };

    it('a task made on A is listed with its ttl, waited for and read whole on B, and C reads the same kept result', async () => {
      const a = await replica();
      const b = await replica();
      const id = await open(a);
      const started = await answer(a, ALICE, taskCall(2, `echo "id=$DSH_SESSION_ID"; ${COUNT}`, { ttl: 60_000 }), id);
      expect((started.result as { task: Message }).task).toMatchObject({ taskId: 'bash-1', status: 'working', ttl: 60_000 });
      await gone(a);

      const listed = (await answer(b, ALICE, request(3, 'tasks/list', {}), id)).result as { tasks: Message[] };
      expect(listed.tasks).toEqual([expect.objectContaining({ taskId: 'bash-1', ttl: 60_000 })]);
      const result = (await answer(b, ALICE, request(4, 'tasks/result', { taskId: 'bash-1' }), id)).result as Message;
      const text = callText(result);
      const sessionId = /^id=(\S+)\n/.exec(text)?.[1];
      expect(sessionId).toBeDefined();
      expect(text).toBe(`id=${sessionId}\n${LINES}\n[stderr]\noops\n[status: failed, exit code: 3]`);
      expect((await answer(b, ALICE, request(5, 'tasks/get', { taskId: 'bash-1' }), id)).result).toMatchObject({ taskId: 'bash-1', status: 'failed', ttl: 60_000 });

      const c = await replica();
      expect(callText((await answer(c, ALICE, request(6, 'tasks/result', { taskId: 'bash-1' }), id)).result)).toBe(text);
      // Another caller's token with the session's id is refused before any task is looked at.
      expect((await post(c, BOB, request(7, 'tasks/get', { taskId: 'bash-1' }), id)).status).toBe(404);
    }, 120_000);

    it('tasks/cancel on B stops a task A started', async () => {
      const a = await replica();
      const b = await replica();
      const id = await open(a);
      const started = await answer(a, ALICE, taskCall(2, 'echo "id=$DSH_SESSION_ID"; exec sleep 120', {}), id);
      expect((started.result as { task: Message }).task).toMatchObject({ taskId: 'bash-1', status: 'working' });
      await gone(a);
      const cancelled = (await answer(b, ALICE, request(3, 'tasks/cancel', { taskId: 'bash-1' }), id)).result;
      expect(cancelled).toMatchObject({ taskId: 'bash-1', status: 'cancelled' });
      const text = callText((await answer(b, ALICE, request(4, 'tasks/result', { taskId: 'bash-1' }), id)).result);
      expect(text).toMatch(/^id=\S+\n\[status: killed, signal: SIG(TERM|KILL)\]$/);
    }, 120_000);
  });
});

/** A task-augmented `bash` call of the 2025-11-25 era. */
function taskCall(id: number, command: string, task: Message): Message {
  return request(id, 'tools/call', { name: 'bash', arguments: { command, description: 'Run a test command' }, task });
}
