// No shell the server starts reads the user's startup files. Bash started
// with a socket as stdin (Node's stdio pipes are socket pairs) at shell level
// 1 takes itself for an ssh login and runs ~/.bashrc unless told --norc: a
// .bashrc that hangs (a locked `pyenv rehash`) then kept the SIGKILL watchdog
// from ever killing a dead server's commands.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bwrapUsable } from '../support/bwrap.js';
import { isAlive, processesWith, serverDirs, uniqueMarker, waitUntil } from '../support/mcp-clients.js';
import { bashCall, INITIALIZE, INITIALIZED, resultText } from '../support/raw-legacy.js';
import { startRawStdio } from '../support/raw-stdio.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

/** A HOME whose every bash startup file records who read it. */
function recordingHome(root: string): { home: string; log: string } {
  const home = path.join(root, 'user-home');
  mkdirSync(home);
  const log = path.join(root, 'startup-files-read');
  for (const file of ['.bashrc', '.bash_profile', '.profile', '.bash_login']) {
    writeFileSync(path.join(home, file), `echo "${file} read by $$: $0 $*" >> '${log}'\n`);
  }
  return { home, log };
}

const compositions: Array<[string, string[]]> = [
  ['one-shot', []],
  ['persistent', ['--shell', 'persistent']],
];
if (bwrapUsable) compositions.push(['--sandbox workspace-write', ['--sandbox', 'workspace-write']]);

test.each(compositions)('%s: no shell of the server reads ~/.bashrc or a profile, and the SIGKILL watchdog still reaps', async (_name, args) => {
  const dirs = serverDirs();
  cleanups.push(dirs.cleanup);
  const { home, log } = recordingHome(dirs.root);
  const server = startRawStdio(dirs.workspace, dirs.dshHome, args, { HOME: home });
  server.send(INITIALIZE);
  await server.answer(1);
  server.send(INITIALIZED);
  server.send(bashCall(2, 'echo "level $SHLVL"'));
  expect(resultText(await server.answer(2))).toMatch(/^level \d+$/);
  // A daemon that outlives its call (the one-shot backend kills leftovers: it escapes by nohup in the persistent shell only).
  const marker = `1000.${uniqueMarker()}`;
  const daemon = args.includes('persistent')
    ? `nohup sleep ${marker} >/dev/null 2>&1 & echo ok`
    : `sleep ${marker} >/dev/null 2>&1`;
  server.send(bashCall(3, daemon, args.includes('persistent') ? {} : { run_in_background: true }, 'Daemon'));
  const started = resultText(await server.answer(3));
  expect(started).toMatch(/^(ok|started background task \S+)$/m);
  // The whole result in the failure, should the daemon be missing (a CI run once waited for it in vain).
  await waitUntil(() => processesWith(marker).length > 0, `the daemon runs (its call said ${JSON.stringify(started)})`);
  process.kill(server.child.pid!, 'SIGKILL');
  await waitUntil(() => !isAlive(server.child.pid!), 'the server is gone');
  await waitUntil(() => processesWith(marker).length === 0, 'the watchdog killed the daemon');
  expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
}, 60_000);
