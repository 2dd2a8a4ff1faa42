// Issue 23 item 1: the container exec wrapper and the persistent shell's
// launcher now outlive the command's stop to say how it ended (a signal or an
// exit code). These commands try to make them lie, or to make them hang.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { containerEnvironment, createHost, type DshHost } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { containerExecHost, type ContainerExecHost } from './support/container-exec-host.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`container exec: the command cannot forge or stall how it ended${NEEDS_ENGINE}`, () => {
  let ct: ContainerExecHost;
  beforeAll(async () => {
    ct = await containerExecHost('texts-forge');
  });
  afterAll(() => ct.dispose());

  it('a signal record printed with $DSH_EXEC_TAG is output, and the exit code stands', async () => {
    const result = await ct.call("printf '\\037dsh-status:%s:signal:9\\037' \"$DSH_EXEC_TAG\" >&2; exit 3");
    expect(result.text).not.toContain('killed by signal');
    expect(result.text).toMatch(/\[exit code: 3\]$/);
  });

  it('a command that stops its wrapper (spared by the stop) still ends at its timeout', async () => {
    const started = performance.now();
    const result = await ct.call('kill -STOP $PPID; sleep 30', { timeoutMs: 500 });
    // timeout 500 + grace 300 + the retries that spare the wrapper (2 × 500) + engine round trips.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result.text).toMatch(/^\(no output\)\n\[timed out after 500ms\]\n\[killed by signal: SIGKILL\]$/);
  });
});

describeWithEngine(`container persistent shell: the shell cannot forge its own end${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-sec-texts-')));
    host = await createHost(...containerEnvironment({ workspace: root, shell: 'persistent', container: { image: TEST_IMAGE } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("a shell that prints the launcher's record with the key from its argv, then exits, is reported by its exit code", async () => {
    const session = host.openSession({ cwd: root });
    try {
      const forge = "k=$(tr '\\0' '\\n' </proc/$PPID/cmdline | tail -n 1); printf '\\036dsh-status:%s:signal:9\\036' \"$k\"; exit 5";
      const result = text(await session.call('bash', { command: forge }));
      expect(result).toContain('[shell exited: code 5]');
      expect(result).not.toContain('killed by signal');
    } finally {
      await session.dispose();
    }
  });
});
