// Issue 34 item 6: in one Docker session, a loop alternating a one-shot
// `true` and a persistent `true` once left a call unanswered until the
// client's timeout. Every call of such loops (one-shot, persistent,
// alternated) must come back with its answer; each call's own timeout is
// short, so a stuck call shows as a timeout or a clear error, never a hang.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { containerEnvironment, createHost, type DshHost, type HostSession } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const ROUNDS = 60;

describeWithEngine(`one Docker session: one-shot and persistent calls in loops all answer${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  let session: HostSession;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-sec-loop-')));
    host = await createHost(...containerEnvironment({ workspace: root, shell: 'both', container: { image: TEST_IMAGE } }));
    session = host.openSession({ id: 'loop', cwd: root });
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const call = async (tool: string, round: number): Promise<string> =>
    text(await session.call(tool, { command: `true; echo r${round}`, description: 'Loop', ...(tool === 'bash' ? { timeoutMs: 20_000 } : {}) }));

  it.each([
    ['one-shot', ['bash']],
    ['persistent', ['bash_persistent']],
    ['alternated', ['bash', 'bash_persistent']],
  ])('%s: %s rounds, every call answered with its own output', async (_name, tools) => {
    for (let round = 0; round < ROUNDS; round++) {
      for (const tool of tools) expect(`${tool}: ${await call(tool, round)}`).toBe(`${tool}: r${round}`);
    }
  }, 300_000);
});
