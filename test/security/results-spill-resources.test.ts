// Issue 22 item 13: spill files are offered as resource_link content, and
// resources/read answers only the session the link was handed to. Another
// session, a guessed or rewritten URI, a file outside the spills, or a spill
// swapped for a symlink each get a clear "resource not found" error.
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { openSession, textBlocks, type ResultsSession } from '../support/results-kit.js';

let dir: string;
let host: DshHost;
let owner: ResultsSession;
let other: ResultsSession;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-results-spill-'));
  host = await createHost(...localEnvironment({ workspace: dir, executor: { maxOutputBytes: 1000 } }));
  owner = await openSession(host, dir);
  other = await openSession(host, dir);
});

afterAll(async () => {
  await owner?.close();
  await other?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const NOT_OFFERED = /unknown resource .*: this session was not offered it \(only its own spill files can be read\)/;
const SEQ_2000 = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join('');

async function spill(session: ResultsSession, command = 'seq 1 2000'): Promise<{ link: ResourceLink; file: string }> {
  const result = await session.bash(command);
  const file = /full output: (\S+)\]/.exec(textBlocks(result))?.[1];
  expect(file).toBeDefined();
  const links = result.content.filter((block): block is ResourceLink => block.type === 'resource_link');
  expect(links).toHaveLength(1);
  return { link: links[0]!, file: file! };
}

async function readFails(session: ResultsSession, uri: string): Promise<Error & { code?: number }> {
  const failure = await session.client.readResource({ uri }).then(
    () => undefined,
    (error: Error & { code?: number }) => error,
  );
  expect(failure).toBeDefined();
  // Resource not found, as the 2026-07-28 spec has it on every era: -32602 whose data is exactly the URI.
  expect(failure!.code).toBe(-32602);
  expect((failure as Error & { data?: unknown }).data).toEqual({ uri });
  return failure!;
}

test('the owner reads its spill through the link next to the text: the complete output', async () => {
  const { link, file } = await spill(owner);
  expect(fileURLToPath(link.uri)).toBe(file);
  expect(link).toMatchObject({ name: path.basename(file), mimeType: 'text/plain' });
  const read = await owner.client.readResource({ uri: link.uri });
  expect(read.contents).toEqual([{ uri: link.uri, mimeType: 'text/plain', text: SEQ_2000 }]);
  expect((await owner.client.listResources()).resources.map((resource) => resource.uri)).toContain(link.uri);
});

test("another session can neither read nor list the owner's spill", async () => {
  const { link } = await spill(owner);
  expect((await readFails(other, link.uri)).message).toMatch(NOT_OFFERED);
  expect((await other.client.listResources()).resources).toEqual([]);
});

test('guessed and rewritten URIs are refused, even from the owner and even inside its spill directory', async () => {
  const { link, file } = await spill(owner);
  const spillDir = path.dirname(file);
  const guesses = [
    pathToFileURL('/etc/passwd').href,
    `file://${spillDir}/../${path.basename(spillDir)}/${path.basename(file)}`,
    `file://${file.replace(/\//g, '%2F')}`,
    pathToFileURL(path.join(spillDir, '999-stdout.log')).href,
    `${link.uri}?x=1`,
    link.uri.replace('file://', 'file://localhost'),
    `dsh-spill://${file}`,
    file,
  ];
  for (const uri of guesses) expect((await readFails(owner, uri)).message).toMatch(NOT_OFFERED);
  // The other session's own spill does not open the owner's either.
  const mine = await spill(other);
  expect((await readFails(owner, mine.link.uri)).message).toMatch(NOT_OFFERED);
  expect((await other.client.readResource({ uri: mine.link.uri })).contents[0]).toMatchObject({ text: SEQ_2000 });
});

test('a spill swapped for a symlink is not followed; a removed one says so', async () => {
  const swapped = await spill(owner);
  unlinkSync(swapped.file);
  symlinkSync('/etc/hostname', swapped.file);
  const refused = await readFails(owner, swapped.link.uri);
  expect(refused.message).toContain(`spill file ${swapped.file} cannot be read (ELOOP)`);

  const removed = await spill(owner);
  unlinkSync(removed.file);
  expect((await readFails(owner, removed.link.uri)).message).toContain(
    `spill file ${removed.file} no longer exists (removed with its session or by spill retention)`,
  );
  expect((await owner.client.listResources()).resources.map((resource) => resource.uri)).not.toContain(removed.link.uri);
});
