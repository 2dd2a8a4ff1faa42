// The MCP task records of shared sessions (docs/shared-sessions.md#mcp-tasks), over a fake engine
// listing (unit test): records go to the session's directory, a record is found by name in any
// listed container's directory, a first `putOnce` wins, and only hashed names are taken.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionContext } from '../../../src/core/tool-contract.js';
import { LABELS } from '../../../src/providers/exec/engine/container-engine.js';
import type { SessionContainers } from '../../../src/providers/exec/engine/session-containers.js';
import { mcpTaskRecordName } from '../../../src/providers/tasks/mcp-task-store.js';
import { SharedMcpTaskStore } from '../../../src/providers/tasks/shared-mcp-task-store.js';

let root: string;
let dirs: Record<string, string>;
let store: SharedMcpTaskStore;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'dsh-mts-'));
  dirs = { one: path.join(root, 'one'), two: path.join(root, 'two') };
  const listed = Object.entries(dirs).map(([session, dir], i) => ({ id: `c${i}`, labels: { [LABELS.session]: session, [LABELS.dir]: dir, [LABELS.created]: String(i) } }));
  const containers = {
    sessionDirOf: (session: { id: string }) => Promise.resolve(dirs[session.id]),
    engine: { list: () => Promise.resolve(listed) },
  } as unknown as SessionContainers;
  store = new SharedMcpTaskStore(containers);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A session as the store sees it: only its id is read. */
const session = (id: string) => ({ id }) as unknown as SessionContext;

test("a record is written in its session's directory, read there, and found by name from anywhere", async () => {
  const name = mcpTaskRecordName('dsh-t-secret', 'task');
  expect(name).toMatch(/^[0-9a-f]{64}\.task$/);
  await store.put(session('two'), name, { era: 'modern', runtimeId: 'bash-1' });
  expect(readdirSync(path.join(dirs.two!, 'mcp-tasks'))).toEqual([`${name}.json`]);
  expect(statSync(path.join(dirs.two!, 'mcp-tasks')).mode & 0o777).toBe(0o700);
  expect(statSync(path.join(dirs.two!, 'mcp-tasks', `${name}.json`)).mode & 0o777).toBe(0o600);
  expect(await store.get(session('two'), name)).toEqual({ era: 'modern', runtimeId: 'bash-1' });
  expect(await store.get(session('one'), name)).toBeUndefined();
  expect(await store.find(name)).toEqual({ era: 'modern', runtimeId: 'bash-1' });
  expect(await store.find(mcpTaskRecordName('dsh-t-other', 'task'))).toBeUndefined();
});

test('putOnce keeps the first value: a second writer gets it back', async () => {
  const name = mcpTaskRecordName('bash-1', 'result');
  expect(await store.putOnce(session('one'), name, { mark: { out: 3, err: 0 } })).toEqual({ kept: { mark: { out: 3, err: 0 } }, written: true });
  expect(await store.putOnce(session('one'), name, { mark: { out: 9, err: 9 } })).toEqual({ kept: { mark: { out: 3, err: 0 } }, written: false });
});

test('names other than a hash and a part are refused; a session without a directory cannot record', async () => {
  await expect(store.put(session('one'), '../escape.task', {})).rejects.toThrow('invalid MCP task record name');
  await expect(store.find('bash-1.task')).rejects.toThrow('invalid MCP task record name');
  await expect(store.put(session('none'), mcpTaskRecordName('x', 'task'), {})).rejects.toThrow('session none has no shared directory');
});
