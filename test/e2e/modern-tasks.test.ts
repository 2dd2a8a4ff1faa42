// Issue 22 item 3, the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663) end to end: the built server over stdio and HTTP, driven by raw
// JSON-RPC requests that declare the extension in their own envelope (or not).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processesWith, serverDirs, tempDir } from '../support/mcp-clients.js';
import { type RawStdioServer, startRawStdio } from '../support/raw-stdio.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { handleIn } from '../support/modern-client.js';
import {
  bashParams,
  callText,
  httpDriver,
  pollUntilDone,
  resultOf,
  stdioDriver,
  TASK_ID_SHAPE,
  TASKS_EXTENSION,
  type ModernRaw,
} from '../support/raw-modern.js';
import { uniqueSleep, waitUntilRunning } from '../support/process-table.js';

const TOKEN = 'modern-tasks-e2e-token-0123456789';
/** A server whose default command timeout is 0.5 s, so a longer command is promoted to a background task. */
const PROMOTING_CONFIG = 'executor:\n  timeoutMs: 500\n';

async function createsPollsAndCompletes(raw: ModernRaw): Promise<void> {
  const discover = resultOf(await raw.request('server/discover', {}));
  expect(discover.capabilities).toMatchObject({ extensions: { [TASKS_EXTENSION]: {} } });

  const created = resultOf(await raw.request('tools/call', bashParams('echo first; sleep 1; echo second', { run_in_background: true })));
  expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null, pollIntervalMs: 1000 });
  expect(created.taskId).toMatch(TASK_ID_SHAPE);
  expect(Date.parse(String(created.createdAt))).not.toBeNaN();
  // The call's own text stays beside the task: the runtime's id and the session handle the call made.
  expect(callText(created)).toMatch(/^started background task (bash-\d+)\n\n\[session: dsh-s-/);
  const runtimeId = /bash-\d+/.exec(callText(created))![0];
  const handle = handleIn(callText(created))!;

  const done = await pollUntilDone(raw, String(created.taskId));
  expect(done).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'completed', statusMessage: 'exit code: 0', pollIntervalMs: 1000 });
  // The final CallToolResult inline: what task_output says, then the handle the creating call minted.
  expect(callText(done.result)).toMatch(/^first\nsecond\n\[status: completed, exit code: 0\]\n\n\[session: dsh-s-/);
  expect(handleIn(callText(done.result))).toBe(handle);
  // The same answer on every poll (the output was read once).
  expect(resultOf(await raw.request('tasks/get', { taskId: created.taskId })).result).toEqual(done.result);
  // The model's view through the handle shows the same task.
  const listed = resultOf(await raw.request('tools/call', { name: 'task_list', arguments: { session: handle } }));
  expect(callText(listed)).toMatch(new RegExp(`${runtimeId}\\b.*completed`));
  // No input is ever outstanding: tasks/update is acknowledged and changes nothing. There is no tasks/list.
  expect(resultOf(await raw.request('tasks/update', { taskId: created.taskId, inputResponses: { any: { action: 'accept', content: {} } } }))).toMatchObject({ resultType: 'complete' });
  expect((await raw.request('tasks/list', {})).error).toMatchObject({ code: -32601 });
}

async function nonZeroExitCompletes(raw: ModernRaw): Promise<void> {
  const created = resultOf(await raw.request('tools/call', bashParams('echo oops; exit 3', { run_in_background: true })));
  const done = await pollUntilDone(raw, String(created.taskId));
  // `failed` is for JSON-RPC errors only: a command that exited non-zero completed with its result.
  expect(done).toMatchObject({ status: 'completed', statusMessage: 'exit code: 3' });
  expect(callText(done.result)).toMatch(/^oops\n\[status: failed, exit code: 3\]/);
}

async function cancels(raw: ModernRaw): Promise<void> {
  const sleep = uniqueSleep();
  const created = resultOf(await raw.request('tools/call', bashParams(`sleep ${sleep}`, { run_in_background: true })));
  expect(created.status).toBe('working');
  expect(await waitUntilRunning(sleep)).not.toEqual([]);
  const ack = resultOf(await raw.request('tasks/cancel', { taskId: created.taskId }));
  expect(ack).toMatchObject({ resultType: 'complete' });
  expect(Object.keys(ack).filter((key) => key !== '_meta' && key !== 'resultType')).toEqual([]);
  // Answered after the process ended.
  expect(processesWith(sleep)).toEqual([]);
  const after = resultOf(await raw.request('tasks/get', { taskId: created.taskId }));
  expect(after).toMatchObject({ status: 'cancelled', statusMessage: 'signal: SIGTERM' });
  expect(after.result).toBeUndefined();
  // Cancelling a finished task is acknowledged too (the extension's cancel is eventually consistent).
  expect(resultOf(await raw.request('tasks/cancel', { taskId: created.taskId }))).toMatchObject({ resultType: 'complete' });
}

async function undeclaredSeesNoChange(raw: ModernRaw): Promise<void> {
  const plain = resultOf(await raw.request('tools/call', bashParams('echo bg', { run_in_background: true }), { declare: false }));
  expect(plain.resultType).toBe('complete');
  expect(plain.taskId).toBeUndefined();
  expect(callText(plain)).toMatch(/^started background task bash-\d+\n\n\[session: dsh-s-/);
  expect(plain.structuredContent).toMatchObject({ kind: 'background' });
  // The task methods want the extension declared on their own request.
  const declared = resultOf(await raw.request('tools/call', bashParams('echo bg', { run_in_background: true })));
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
    const refused = await raw.request(method, { taskId: declared.taskId, inputResponses: {} }, { declare: false });
    expect(refused.error).toEqual({
      code: -32021,
      message: `Missing required client capability: extension "${TASKS_EXTENSION}"`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  }
}

async function promotes(raw: ModernRaw): Promise<void> {
  // `working` in the answer: it came while the command still ran (a loaded machine may take a while to promote).
  const created = resultOf(await raw.request('tools/call', bashParams('sleep 4; echo promoted')));
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  expect(callText(created)).toMatch(/still running after 500ms: moved to background task bash-\d+/);
  const done = await pollUntilDone(raw, String(created.taskId));
  expect(done.status).toBe('completed');
  expect(callText(done.result)).toMatch(/promoted\n\[status: completed, exit code: 0\]/);
  // Without the extension the promotion answers as before: a normal result naming the background task.
  const plain = resultOf(await raw.request('tools/call', bashParams('sleep 4; echo promoted'), { declare: false }));
  expect(plain).toMatchObject({ resultType: 'complete', structuredContent: { kind: 'background' } });
}

const CASES: Array<[string, (raw: ModernRaw) => Promise<void>]> = [
  ['create → poll → completed, the CallToolResult inline; tasks/update acks; no tasks/list', createsPollsAndCompletes],
  ['a non-zero exit completes (not failed) with the exit in the result', nonZeroExitCompletes],
  ['tasks/cancel kills the process and answers after it ended', cancels],
  ['a request without the extension gets a normal result, and -32021 from the task methods', undeclaredSeesNoChange],
];

describe('stdio', () => {
  let dirs: ReturnType<typeof serverDirs>;
  let server: RawStdioServer;
  const start = (args: string[] = []): ModernRaw => {
    server = startRawStdio(dirs.workspace, dirs.dshHome, args);
    return stdioDriver(server);
  };
  beforeEach(() => (dirs = serverDirs()));
  afterEach(async () => {
    server.child.stdin!.end();
    await server.exited;
    dirs.cleanup();
  });

  test.each(CASES)('%s', async (_name, run) => run(start()), 60_000);

  test('a command promoted at the default timeout answers as a task', async () => {
    const config = path.join(dirs.root, 'promoting.yaml');
    writeFileSync(config, PROMOTING_CONFIG);
    await promotes(start(['--config', config]));
  }, 60_000);

  test('an approval is settled by its input_required round trip first; the approved call then answers as a task', async () => {
    const config = path.join(dirs.root, 'approvals.yaml');
    writeFileSync(config, 'approval:\n  rules:\n    - { match: echo approve-me, action: ask, name: tasks approval }\n');
    const raw = start(['--config', config]);
    const asking = { capabilities: { elicitation: { form: {} } } };
    const params = bashParams('echo approve-me', { run_in_background: true });
    const first = resultOf(await raw.request('tools/call', params, asking));
    expect(first.resultType).toBe('input_required');
    const [key, ask] = Object.entries(first.inputRequests as Record<string, { params: { requestedSchema: { properties: Record<string, { default: unknown }> } } }>)[0]!;
    const content = Object.fromEntries(Object.entries(ask.params.requestedSchema.properties).map(([field, schema]) => [field, schema.default]));
    const approved = resultOf(await raw.request('tools/call', { ...params, inputResponses: { [key]: { action: 'accept', content } }, requestState: first.requestState }, asking));
    expect(approved).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await pollUntilDone(raw, String(approved.taskId));
    expect(callText(done.result)).toMatch(/^approve-me\n\[status: completed, exit code: 0\]/);
  }, 60_000);
});

describe('HTTP', () => {
  const suite = httpServerForSuite({ token: TOKEN });
  test.each(CASES)('%s', async (_name, run) => run(httpDriver(suite.server.url, TOKEN)), 60_000);
});

describe('HTTP, promoting at 0.5 s', () => {
  const configDir = tempDir('dsh-e2e-promoting-');
  const config = path.join(configDir.dir, 'promoting.yaml');
  writeFileSync(config, PROMOTING_CONFIG);
  afterAll(() => configDir.cleanup());
  const suite = httpServerForSuite({ token: TOKEN, args: ['--config', config] });
  test('a command promoted at the default timeout answers as a task', async () => promotes(httpDriver(suite.server.url, TOKEN)), 60_000);
});
