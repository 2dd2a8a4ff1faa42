// The first example of docs/embedding.md runs: a real command, the prompt,
// the staging variable from the env module.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { firstSession } from '../src/first-session.js';

it('runs the first session of the guide', async () => {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'consumer-first-')));
  try {
    const first = await firstSession(workspace, path.join(workspace, 'agent-7.jsonl'));
    expect(first).toMatchObject({ text: 'staging', exitCode: 0, notices: [] });
    expect(first.sections).toContain('tool:bash');
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});
