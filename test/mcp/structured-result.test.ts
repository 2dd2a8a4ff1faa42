// Issue 22 item 10: the text is the model's view (markers, notices); the
// structured value must carry the same information without a second copy of
// the output. Real 1.x SDK client, which also validates every result against
// the listed output schema.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { openSession, textBlocks, type ResultsSession } from '../support/results-kit.js';

let dir: string;
let host: DshHost;
let session: ResultsSession;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-structured-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
  session = await openSession(host, dir);
  await session.client.listTools();
});

afterAll(async () => {
  await session?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('seq 1 300000: the structured value is the text plus small fields, with every marker and notice of the text', async () => {
  const started = await session.bash('true', { run_in_background: true });
  const taskId = (started.structuredContent as { taskId: string }).taskId;
  const notice = await session.notice(`background task ${taskId} `);

  const result = await session.bash('seq 1 300000');
  const text = textBlocks(result);
  const structured = result.structuredContent as Record<string, unknown>;
  // The model's view: the tail of the output, the truncation marker, and the pending notice.
  expect(text).toMatch(/\n300000\n\[output truncated; full output: \S+\]\n\n/);
  expect(text.endsWith(notice)).toBe(true);

  expect(structured.text).toBe(text);
  for (const key of ['stdout', 'stderr', 'output']) expect(structured).not.toHaveProperty(key);
  const markers = text.split('\n').filter((line) => /^\[.*\]$/.test(line));
  expect(markers.length).toBeGreaterThanOrEqual(1);
  for (const line of [...markers, notice]) expect(structured.text).toContain(line);
  expect(structured).toMatchObject({ kind: 'foreground', exitCode: 0, stdoutTruncated: true, stdoutSpillPath: expect.any(String) });

  // Size: one copy of the text, plus fields that do not grow with the output.
  const { text: _text, ...fields } = structured;
  expect(JSON.stringify(fields).length).toBeLessThan(1000);
  expect(JSON.stringify(structured).length).toBeLessThan(text.length * 1.2 + 1000);
}, 60_000);

test('task_output and task_list carry their text; the output is not repeated beside it', async () => {
  const started = await session.bash('seq 1 5; sleep 30', { run_in_background: true });
  const taskId = (started.structuredContent as { taskId: string }).taskId;
  const read = await session.call('task_output', { task_id: taskId, wait: false });
  const structured = read.structuredContent as Record<string, unknown>;
  expect(structured.text).toBe(textBlocks(read));
  expect(structured).not.toHaveProperty('output');
  expect(structured).toMatchObject({ kind: 'task_output', taskId, status: 'running' });
  const listed = await session.call('task_list', {});
  expect((listed.structuredContent as { text: string }).text).toBe(textBlocks(listed));
  await session.call('task_kill', { task_id: taskId });
}, 60_000);
