// A stdio message larger than the transport accepts must not stop the built
// server silently with exit 0: it says why on stderr and exits non-zero,
// after disposing its session (a background task of that session dies too).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { processesWith, serverDirs, uniqueMarker, waitUntil } from '../support/mcp-clients.js';
import { bashCall, INITIALIZE, INITIALIZED } from '../support/raw-legacy.js';

let dirs: ReturnType<typeof serverDirs>;

beforeAll(() => {
  ensureBuilt();
  dirs = serverDirs();
}, 180_000);

afterAll(() => dirs?.cleanup());

const line = (message: object) => `${JSON.stringify(message)}\n`;

test('a message over the stdio limit: the reason on stderr, a non-zero exit, no process left', async () => {
  const child = spawn(process.execPath, [MAIN_JS, 'serve', '--workspace', dirs.workspace], {
    env: { PATH: process.env.PATH ?? '', DSH_HOME: dirs.dshHome },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const marker = `1000.${uniqueMarker()}`;

  child.stdin.write(
    line(INITIALIZE),
  );
  child.stdin.write(line(INITIALIZED));
  child.stdin.write(
    line(bashCall(2, `sleep ${marker}`, { run_in_background: true }, 'Sleep')),
  );
  await waitUntil(() => processesWith(marker).length > 0, `sleep ${marker} runs`);

  // 11 MiB with no newline: past the SDK's 10 MiB read buffer. The server stops reading before the end: EPIPE is expected.
  child.stdin.on('error', () => undefined);
  child.stdin.write(Buffer.alloc(11 * 1024 * 1024, 0x61));
  const [code] = await exited;
  expect(code).toBe(1);
  expect(stderr).toMatch(/stdin carried a message over the MCP transport's limit \(ReadBuffer exceeded maximum size of \d+ bytes\)/);
  expect(stdout).toContain('started background task');
  expect(processesWith(marker)).toEqual([]);
}, 60_000);
