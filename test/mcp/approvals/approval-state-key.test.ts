// The key replicas seal approval states with (HttpToken.derivedKey): every
// server holding the same named tokens derives the same one, whatever the
// file's order; a server (or caller) holding fewer or other tokens does not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import { APPROVAL_STATE_LABEL } from '../../../src/mcp/approvals/shared-approval-states.js';

const ALICE = 'alice:alice-token-0123456789abcdef';
const BOB = 'bob:bob-token-0123456789abcdef00';
let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-state-key-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyOf(name: string, lines: string[], label = APPROVAL_STATE_LABEL): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return resolveHttpToken({ tokenFile: file, env: {} }).derivedKey!(label).toString('hex');
}

test('the same tokens in any order derive the same key; fewer, other, or another label do not', () => {
  const both = keyOf('both', [ALICE, BOB]);
  expect(both).toMatch(/^[0-9a-f]{64}$/);
  expect(keyOf('reversed', [BOB, ALICE])).toBe(both);
  expect(keyOf('alice-only', [ALICE])).not.toBe(both);
  expect(keyOf('renamed', [ALICE, BOB.replace('bob:', 'carol:')])).not.toBe(both);
  expect(keyOf('other-label', [ALICE, BOB], 'another use')).not.toBe(both);
});
