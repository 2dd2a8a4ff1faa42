// A session handle (2026-07-28 era) is bound to the caller whose token made
// it, like a 2025 session id: another caller's use reads as unknown, runs
// nothing, and leaves the session working for its owner.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { handleIn, modernHttp, modernText } from '../support/modern-client.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';

const suite = httpServerForSuite({
  token: ALICE,
  args: ['--shell', 'persistent'],
  tokenFile: (dirs) => {
    const tokens = path.join(dirs.root, 'tokens');
    writeFileSync(tokens, `alice:${ALICE}
bob:${BOB}
`, { mode: 0o600 });
    return tokens;
  },
});

test("bob cannot use alice's handle: the same Error as an unknown one, nothing runs, alice's shell is untouched", async () => {
  const alice = await modernHttp(suite.server.url, ALICE);
  const bob = await modernHttp(suite.server.url, BOB);
  try {
    const made = modernText(await alice.callTool({ name: 'bash', arguments: { command: 'SECRET=alice-only; echo ok', description: 'Set state' } }));
    const handle = handleIn(made)!;
    expect(handle).toBeDefined();
    const marker = path.join(suite.dirs.workspace, 'bob-ran');
    const stolen = await bob.callTool({ name: 'bash', arguments: { command: `echo $SECRET > ${marker}`, description: 'Steal', session: handle } });
    expect(stolen.isError).toBe(true);
    expect(modernText(stolen)).toBe(
      `Error: session handle "${handle}" is unknown or expired (an idle session is closed with its shell and background tasks); call again without "session" to start a fresh session`,
    );
    const guessed = 'dsh-s-' + 'B'.repeat(43);
    expect(modernText(await bob.callTool({ name: 'bash', arguments: { command: 'true', description: 'Guess', session: guessed } }))).toBe(
      modernText(stolen).replace(handle, guessed),
    );
    expect(existsSync(marker)).toBe(false);
    expect(modernText(await alice.callTool({ name: 'bash', arguments: { command: 'echo $SECRET', description: 'Read state', session: handle } }))).toBe('alice-only');
  } finally {
    await Promise.allSettled([alice.close(), bob.close()]);
  }
}, 60_000);
