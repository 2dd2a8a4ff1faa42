// A server killed with SIGKILL runs no cleanup: the shells it pre-started for
// its sessions' next calls (src/providers/exec/shell/prestarted-shell.ts) must end
// anyway (their pipe from the server closes; the reaper watchdog's tag covers them).
import { readdirSync, readFileSync } from 'node:fs';
import { bwrapUsable } from '../support/bwrap.js';
import { ensureBuilt } from '../support/built-server.js';
import { isAlive, serverDirs, startStdioServer, textOf, waitUntil } from '../support/mcp-clients.js';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Live pre-started shells (`dsh-launcher`) started by `serverPid` (directly, or under its bwrap). */
function launchersOf(serverPid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(': dsh-launcher;') || !isAlive(pid)) continue;
    } catch {
      continue;
    }
    let ancestor = parentOf(pid);
    for (let depth = 0; depth < 4 && ancestor !== undefined && ancestor > 1; depth++) {
      if (ancestor === serverPid) {
        found.push(pid);
        break;
      }
      ancestor = parentOf(ancestor);
    }
  }
  return found;
}

beforeAll(() => ensureBuilt(), 180_000);

const compositions: Array<[string, string[]]> = [['unconfined', []]];
if (bwrapUsable) compositions.push(['--sandbox workspace-write', ['--sandbox', 'workspace-write']]);

test.each(compositions)('SIGKILL of the server (%s) leaves no pre-started shell', async (_name, args) => {
  const dirs = serverDirs();
  try {
    const server = await startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args });
    const result = await server.call('bash', { command: 'echo ready', description: 'Warm up' });
    expect(textOf(result)).toMatch(/^ready/);
    let launchers: number[] = [];
    await waitUntil(() => (launchers = launchersOf(server.pid)).length >= 1, 'a shell is pre-started');
    process.kill(server.pid, 'SIGKILL');
    await waitUntil(() => !isAlive(server.pid), 'the server is gone');
    await waitUntil(() => launchers.every((pid) => !isAlive(pid)), 'no pre-started shell survives the server');
    await server.close().catch(() => undefined);
  } finally {
    dirs.cleanup();
  }
}, 60_000);
