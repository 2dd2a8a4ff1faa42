// A server killed with SIGKILL runs no cleanup: its watchdog (see
// src/providers/exec/process/reaper-watchdog.ts) must still kill every process its
// one-shot calls started, including those that left their process group.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { bwrapUsable } from '../support/bwrap.js';
import { ensureBuilt } from '../support/built-server.js';
import { isAlive, processesWith, startStdioServer, tempDir, textOf, uniqueMarker, waitUntil } from '../support/mcp-clients.js';

let root: string;
let cleanup: () => void;

beforeAll(() => {
  ensureBuilt();
  ({ dir: root, cleanup } = tempDir());
}, 180_000);

afterAll(() => cleanup?.());

const escapes = (s: string) =>
  `setsid sleep ${s} >/dev/null 2>&1 & nohup sleep ${s} >/dev/null 2>&1 & (set -m; sleep ${s} >/dev/null 2>&1 &); ` +
  `( (sleep ${s} >/dev/null 2>&1 &) & ); sleep ${s} >/dev/null 2>&1 & disown; sleep ${s}`;

const compositions: Array<[string, string[]]> = [['unconfined', []]];
if (bwrapUsable) compositions.push(['--sandbox workspace-write', ['--sandbox', 'workspace-write']]);

test.each(compositions)('SIGKILL of the server (%s) leaves none of its commands running', async (name, args) => {
  const workspace = path.join(root, name.replace(/\W+/g, '-'));
  mkdirSync(workspace);
  const server = await startStdioServer({ workspace, dshHome: path.join(root, `home-${workspace.length}`), args });
  const marker = `1000.${uniqueMarker()}`;
  const started = await server.call('bash', { command: escapes(marker), description: 'Escape', run_in_background: true });
  expect(textOf(started)).toMatch(/^started background task \S+$/);
  // A foreground call still in flight too (its own marker: the server may start it after the task).
  const foreground = `1000.${uniqueMarker()}`;
  const inFlight = server.call('bash', { command: escapes(foreground), description: 'Escape' }).catch(() => undefined);
  // Each call: six sleeps (bash execs the last one itself).
  await waitUntil(() => processesWith(marker).length >= 6, `the task started its processes (${name})`);
  await waitUntil(() => processesWith(foreground).length >= 6, `the foreground call started its processes (${name})`);
  process.kill(server.pid, 'SIGKILL');
  await waitUntil(() => !isAlive(server.pid), 'the server is gone');
  await waitUntil(
    () => processesWith(marker).length + processesWith(foreground).length === 0,
    `no process of the killed server survives (${name})`,
  );
  await inFlight;
  await server.close().catch(() => undefined);
}, 60_000);

test('SIGKILL of a server with the persistent shell leaves none of its commands running', async () => {
  const workspace = path.join(root, 'persistent');
  mkdirSync(workspace);
  const server = await startStdioServer({ workspace, dshHome: path.join(root, 'home-persistent'), args: ['--shell', 'persistent'] });
  const marker = `1000.${uniqueMarker()}`;
  const started = await server.call('bash', {
    command: `setsid sleep ${marker} >/dev/null 2>&1 & ( (setsid sleep ${marker} >/dev/null 2>&1 &) & ); nohup sleep ${marker} >/dev/null 2>&1 & echo started`,
  });
  expect(textOf(started)).toMatch(/started$/);
  await waitUntil(() => processesWith(marker).length === 3, 'the daemons run');
  process.kill(server.pid, 'SIGKILL');
  await waitUntil(() => !isAlive(server.pid), 'the server is gone');
  await waitUntil(() => processesWith(marker).length === 0, 'no daemon of the killed server survives');
  await server.close().catch(() => undefined);
}, 60_000);
