// Run inside a project that installed the packed tarball with no compiler on
// PATH. `pty` mode: a PTY module loaded (node-pty or the prebuilt fallback);
// `none` mode: both were removed, so only the persistent shell is pending.
const assert = require('node:assert');
require('reflect-metadata');
const { createHost, localEnvironment } = require('dsh-tools');

async function main(mode) {
  const oneshot = await createHost(...localEnvironment({ workspace: process.cwd() }));
  const persistent = await createHost(...localEnvironment({ workspace: process.cwd(), shell: 'persistent' }));
  try {
    const echo = await oneshot.openSession().call('bash', { command: 'echo one-shot works', description: 'Echo' });
    assert.strictEqual(echo.content[0].text, 'one-shot works');
    const shell = await persistent.openSession().call('bash', { command: 'cd / && pwd' });
    if (mode === 'pty') {
      assert.deepStrictEqual(persistent.pending(), []);
      assert.strictEqual(shell.content[0].text, '/');
    } else {
      const [pending] = persistent.pending();
      assert.strictEqual(pending.name, 'bash');
      assert.match(pending.missing[0], /^TerminalService \(no PTY module loads \(node-pty is not installed; @lydell\/node-pty is not installed\); install @lydell\/node-pty/);
      assert.strictEqual(shell.isError, true);
      assert.match(shell.content[0].text, /^Error: tool "bash" is not ready: missing TerminalService \(no PTY module loads/);
      // The task tools need no PTY: they stay usable beside the one-shot shell (a persistent-only host mounts none).
      const tasks = await oneshot.openSession().call('task_list', {});
      assert.strictEqual(tasks.content[0].text, '(no background tasks)');
    }
    console.log(`no compiler (${mode}): ok`);
  } finally {
    await oneshot.dispose();
    await persistent.dispose();
  }
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
