// Handles are 32 random bytes: a made-up, malformed or expired one gets a
// clear Error and runs nothing; an expired session's shell is gone.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { handleIn, modernHttp, modernText } from '../support/modern-client.js';

const TOKEN = 'guessed-handle-token-0123456789';
const MALFORMED = 'Error: "session" must be a session handle (dsh-s-…) from an earlier result';

const suite = httpServerForSuite({ token: TOKEN, args: ['--shell', 'persistent', '--idle-timeout', '2'] });

test('malformed handles are refused before anything runs', async () => {
  const client = await modernHttp(suite.server.url, TOKEN);
  try {
    const marker = path.join(suite.dirs.workspace, 'ran');
    for (const session of [42, '', 'dsh-s-short', `dsh-x-${'A'.repeat(43)}`, `dsh-s-${'A'.repeat(43)}/..`, { id: 1 }]) {
      const result = await client.callTool({ name: 'bash', arguments: { command: `touch ${marker}`, description: 'Guess', session } });
      expect([session, modernText(result), result.isError]).toEqual([session, MALFORMED, true]);
    }
    expect(existsSync(marker)).toBe(false);
  } finally {
    await client.close();
  }
}, 60_000);

test('a handle idle past --idle-timeout is expired: the Error says so and its shell is gone', async () => {
  const client = await modernHttp(suite.server.url, TOKEN);
  try {
    const handle = handleIn(modernText(await client.callTool({ name: 'bash', arguments: { command: 'echo $$', description: 'Shell pid' } })))!;
    expect(handle).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 3500)); // the idle timeout itself is what is tested
    const late = await client.callTool({ name: 'bash', arguments: { command: 'true', description: 'Late', session: handle } });
    expect(late.isError).toBe(true);
    expect(modernText(late)).toMatch(
      /^Error: session handle "dsh-s-[A-Za-z0-9_-]{43}" is gone: it was released after 2 s without a request \(--idle-timeout\), with its shell and background tasks; call again without "session" to start a fresh session$/,
    );
  } finally {
    await client.close();
  }
}, 60_000);
