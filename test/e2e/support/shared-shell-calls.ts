// The shared persistent shell's suites (docs/shared-sessions.md#the-persistent-shell):
// a session's `bash_persistent` call posted to one replica by its port (the
// proxy's turn is not a test's to count on), and the replica that drove the
// shell last, read from the session directory's driver record.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { request, resultText } from '../../support/raw-legacy.js';
import { UPSTREAM_HOST } from './round-robin-nginx.js';

/** The headers of a request in the client's session (its id and protocol version). */
export type SessionHeaders = Readonly<Record<string, string>>;

let nextId = 1000;

/** Posts a call of the persistent shell's tool (`bash` under `--shell persistent`) to the replica on `port`; resolves with the raw answer (JSON or an event stream). */
export function postPersistent(port: number, headers: SessionHeaders, command: string, tool = 'bash_persistent'): Promise<string> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(request(nextId++, 'tools/call', { name: tool, arguments: { command, description: 'Shell step' } }));
    const req = http.request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headers, host: UPSTREAM_HOST, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The result text of a persistent shell's call on the replica on `port`. */
export async function persistentOn(port: number, headers: SessionHeaders, command: string, tool = 'bash_persistent'): Promise<string> {
  const text = await postPersistent(port, headers, command, tool);
  const data = text.split('\n').filter((line) => line.startsWith('data: ')).pop()?.slice('data: '.length) ?? text;
  return resultText(JSON.parse(data) as Record<string, unknown>);
}

/** The replica that last drove a session's shell (by the pid its driver record names), in the replicas' TMPDIR; undefined before any. */
export function shellDriver(tmp: string): { pid: number; busy: boolean } | undefined {
  for (const name of readdirSync(tmp).filter((entry) => entry.startsWith('dsh-ss-'))) {
    try {
      const state = JSON.parse(readFileSync(path.join(tmp, name, 'shell', 'driver.json'), 'utf8')) as { by: string; busy: boolean };
      return { pid: Number(state.by.split(' ')[1]), busy: state.busy };
    } catch {
      // Not this session's, or no shell yet.
    }
  }
  return undefined;
}
