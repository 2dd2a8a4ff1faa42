import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, ROOT } from '../support/built-server.js';

// Root enters any directory, so the fault needs a process without that
// power: the built executor runs under setpriv as uid/gid 65534 (nobody).
const SETPRIV = spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;
const describeUnprivileged = SETPRIV && process.getuid?.() === 0 ? describe : describe.skip;

const SCRIPT = `
const { LocalShellExecutor } = await import(${JSON.stringify(path.join(ROOT, 'dist/index.js'))});
const executor = new LocalShellExecutor();
const outcome = {};
for (const mode of ['run', 'start']) {
  try {
    const spec = executor.checkRequest({ command: 'echo ran', workdir: process.argv[1] });
    if (mode === 'run') outcome.run = (await executor.run(spec)).stdout;
    else outcome.start = (await (await executor.start(spec)).done).error;
  } catch (error) {
    outcome[mode] = 'rejected: ' + error.message;
  }
}
await executor.dispose();
process.stdout.write(JSON.stringify(outcome));
`;

describeUnprivileged('an unreadable workdir, seen by a non-root server (uid 65534 via setpriv)', () => {
  let root: string;
  beforeAll(() => {
    ensureBuilt();
    root = mkdtempSync(path.join(os.tmpdir(), 'dsh-unreadable-'));
    chmodSync(root, 0o755);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('says the workdir is not accessible, not that bash is not executable', () => {
    const locked = path.join(root, 'locked');
    mkdirSync(locked, { mode: 0o700 }); // root's own: no search permission for uid 65534
    chmodSync(locked, 0o700);
    const child = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', SCRIPT, locked],
      { encoding: 'utf8', cwd: '/' },
    );
    expect(child.stderr).toBe('');
    const outcome = JSON.parse(child.stdout) as { run: string; start: string };
    expect(outcome.run).toBe(`rejected: workdir is not accessible: ${locked} (EACCES)`);
    expect(outcome.start).toBe(`workdir is not accessible: ${locked} (EACCES)`);
  });
});
