// A 2026-07-28 task is bound to the session handle of the call that made it:
// once the server releases that handle's session (idle), the task id reads
// as not found like any unknown id, and nothing of its output is served.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import { serveHttp } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { waitUntil } from '../support/process-table.js';
import { bashParams, httpDriver, pollUntilDone, resultOf, taskNotFound } from '../support/raw-modern.js';

test('a task of a released handle is not found, and its final result is no longer served', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-tasks2026-released-'));
  const host = await createHost(...localEnvironment({ workspace: dir }));
  const logged: string[] = [];
  const logger = { debug: () => undefined, info: (line: string) => void logged.push(line), warn: () => undefined, error: () => undefined };
  const server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none', idleTimeoutMs: 1000, logger });
  try {
    const raw = httpDriver(new URL(server.url), 'unused-under-no-auth');
    const created = resultOf(await raw.request('tools/call', bashParams('echo released-output', { run_in_background: true })));
    const taskId = String(created.taskId);
    // Finished and not polled to completion: the handle's session has nothing running and idles out.
    await waitUntil(() => logged.some((line) => /mcp: session \S+ ended \(idle\)/.test(line)), 'the idle handle was released', 30_000);
    const answer = await raw.request('tasks/get', { taskId });
    expect(answer.error).toEqual(taskNotFound(taskId));
    expect(JSON.stringify(answer)).not.toContain('released-output');
    expect((await raw.request('tasks/cancel', { taskId })).error).toEqual(taskNotFound(taskId));

    // A live handle's task still answers (the fence is the handle, not the era).
    const live = resultOf(await raw.request('tools/call', bashParams('echo live', { run_in_background: true })));
    expect((await pollUntilDone(raw, String(live.taskId))).status).toBe('completed');
  } finally {
    await server.close();
    await host.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
