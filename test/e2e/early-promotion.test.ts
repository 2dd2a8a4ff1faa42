// Issue 34.7 with the real SDK client on stdio: a call still running at
// bash.promoteAfterMs comes back as a promoted call (before the client's own
// call timeout), and the rest is read through task_output; a cancelled call that
// asked for it becomes a task too.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt } from '../support/built-server.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { processesWith, serverDirs, startStdioServer, textOf, waitUntil } from '../support/mcp-clients.js';
import { uniqueSleep } from '../support/process-table.js';

const cleanups: Array<() => void> = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

test('bash.promoteAfterMs 500: a 2 s call answers as a promoted call at 500 ms; task_output then reads its end', async () => {
  const made = serverDirs();
  cleanups.push(made.cleanup);
  const config = path.join(made.root, 'dsh.yaml');
  writeFileSync(config, 'bash:\n  promoteAfterMs: 500\n');
  const server = await startStdioServer({ workspace: made.workspace, dshHome: made.dshHome, args: ['--config', config] });
  try {
    const first = textOf(await server.call('bash', { command: 'echo begun; sleep 2; echo finished', description: 'Slow build' }));
    const moved = /^begun\n\[still running after 500ms: moved to background task (bash-\d+); read more with task_output, stop it with task_kill\]$/.exec(first);
    expect(moved).not.toBeNull();
    const rest = textOf(await server.call('task_output', { task_id: moved![1]!, wait: true, timeout_ms: 30_000 }));
    expect(rest).toMatch(/^finished\n\[status: completed, exit code: 0\]$/);
  } finally {
    await server.close();
  }
}, 60_000);

test('the SDK client cancels a call that asked `_meta["dsh-tools/onCancel"]: "promote"`: the command lives on as a task the next turn names', async () => {
  const made = serverDirs();
  cleanups.push(made.cleanup);
  const server = await startStdioServer({ workspace: made.workspace, dshHome: made.dshHome });
  try {
    const marker = uniqueSleep().replace(/^1000\./, '2.');
    const controller = new AbortController();
    const call = server.client.callTool(
      { name: 'bash', arguments: { command: `echo begun; sleep ${marker}; echo finished`, description: 'Slow build' }, _meta: { 'dsh-tools/onCancel': 'promote' } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    await waitUntil(() => processesWith(marker).length > 0, 'the command runs');
    controller.abort();
    await expect(call).rejects.toThrow();
    // The next call's answer carries the notice after its own text.
    const next = await server.call('bash', { command: 'echo next', description: 'Next' });
    const moved = /^next\n\n\[a bash call cancelled by the client after \d+ms was moved to background task (bash-\d+) instead of being killed; read more with task_output, stop it with task_kill\]$/.exec(textOf(next));
    expect(moved).not.toBeNull();
    expect(processesWith(marker).length).toBeGreaterThan(0);
    const rest = textOf(await server.call('task_output', { task_id: moved![1]!, wait: true, timeout_ms: 30_000 }));
    expect(rest).toBe('begun\nfinished\n[status: completed, exit code: 0]');
  } finally {
    await server.close();
  }
}, 60_000);
