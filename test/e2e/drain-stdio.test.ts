// Stopping the stdio server with calls in flight loses no answer: end of
// stdin and SIGTERM both let the call finish and print its answer; a request
// sent while draining gets a JSON-RPC error; the exit code is 0.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { processesWith, serverDirs, uniqueMarker, waitUntil } from '../support/mcp-clients.js';
import { bashCall, INITIALIZE, INITIALIZED, resultText } from '../support/raw-legacy.js';
import { startRawStdio } from '../support/raw-stdio.js';

const cleanups: Array<() => void> = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

function dirs(): { root: string; workspace: string; dshHome: string } {
  const made = serverDirs();
  cleanups.push(made.cleanup);
  return made;
}

/** A command that runs until the test creates `go` in the workspace (the marker makes it findable), then prints `late`. */
const waitForGo = (marker: string) => `while [ ! -e go ]; do sleep 0.05; done; : ${marker}; echo late`;

test("printf '<initialize>\\n<initialized>\\n<tools/call sleep 0.5; echo late>\\n' | dsh-tools serve prints the late answer", () => {
  const { workspace, dshHome } = dirs();
  const lines = [INITIALIZE, INITIALIZED, bashCall(2, 'sleep 0.5; echo late')].map((message) => JSON.stringify(message)).join('\\n');
  const out = execFileSync('bash', ['-c', `printf '${lines.replace(/'/g, "'\\''")}\\n' | "${process.execPath}" "${MAIN_JS}" serve --workspace "${workspace}"`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DSH_HOME: dshHome },
  });
  const answers = out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
  expect(resultText(answers[1]!)).toBe('late');
}, 60_000);

test('SIGTERM with stdin open: the call in flight answers, a new call gets a JSON-RPC error, exit 0', async () => {
  const { root, workspace, dshHome } = dirs();
  const config = path.join(root, 'info.yaml');
  writeFileSync(config, 'logLevel: info\n');
  const server = startRawStdio(workspace, dshHome, ['--config', config]);
  const marker = `drain${uniqueMarker()}`;
  server.send(INITIALIZE);
  await server.answer(1);
  server.send(INITIALIZED);
  server.send(bashCall(2, waitForGo(marker)));
  await waitUntil(() => processesWith(marker).length > 0, 'the call runs');
  server.child.kill('SIGTERM');
  await waitUntil(() => server.stderr().includes('shutting down (SIGTERM)'), 'the drain starts');
  server.send(bashCall(3, 'echo too late'));
  expect(await server.answer(3)).toMatchObject({
    error: { code: -32000, message: 'the server is shutting down: it accepts no new sessions or calls; reconnect later' },
  });
  // Still running: the drain waits for it.
  expect(server.messages.find((message) => message.id === 2)).toBeUndefined();
  writeFileSync(path.join(workspace, 'go'), '');
  expect(resultText(await server.answer(2))).toBe('late');
  expect(await server.exited).toBe(0);
}, 60_000);

test('--drain-timeout 1: a call still running is cancelled, its answer says so, exit 0, nothing left running', async () => {
  const { workspace, dshHome } = dirs();
  const server = startRawStdio(workspace, dshHome, ['--drain-timeout', '1']);
  const marker = `1000.${uniqueMarker()}`;
  server.send(INITIALIZE);
  await server.answer(1);
  server.send(INITIALIZED);
  server.send(bashCall(2, `sleep ${marker}`));
  await waitUntil(() => processesWith(marker).length > 0, 'the call runs');
  const stopped = Date.now();
  server.child.stdin!.end();
  const answer = await server.answer(2);
  expect(resultText(answer)).toBe('Error: tool call aborted');
  expect(await server.exited).toBe(0);
  expect(Date.now() - stopped).toBeLessThan(15_000);
  expect(processesWith(marker)).toEqual([]);
}, 60_000);
