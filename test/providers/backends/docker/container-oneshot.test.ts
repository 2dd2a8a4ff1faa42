// The one-shot bash tool in a per-session container, on the real engine: what only a container shows.
// The model-visible behaviour shared with the local shell is test/contract/bash-contract.ts.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { containerProcesses } from '../../../support/container-kit.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`bash in a container${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-ws-')));
    host = await createHost(
      ...containerEnvironment({
        workspace: root,
        container: { image: TEST_IMAGE, env: { FIXED_VAR: 'fixed' } },
        executor: { graceMs: 300, maxOutputBytes: 1000, allowEnv: ['MY_ALLOWED_TOKEN'] },
      }),
    );
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs inside the container, in the workspace mounted at the same path', async () => {
    writeFileSync(path.join(root, 'from-host.txt'), 'hello from the host\n');
    const result = await host.call('bash', {
      command: 'pwd; cat from-host.txt; echo made-inside > made.txt; cat /proc/1/cmdline | tr "\\0" " "',
      description: 'Look around',
    });
    expect(text(result)).toMatch(new RegExp(`^${root}\nhello from the host\n.*docker-init`));
    expect(readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made-inside\n');
  });

  it('gives the image env, container.env, allowEnv names and the DSH_* overlay, nothing else of the server env', async () => {
    process.env.MY_ALLOWED_TOKEN = 'allowed';
    process.env.MY_OTHER_SETTING = 'server-only';
    const session = host.openSession({ id: 'env-check', cwd: root });
    try {
      const result = await session.call('bash', {
        command: 'echo "$DSH_IMAGE_VAR $FIXED_VAR $MY_ALLOWED_TOKEN ${MY_OTHER_SETTING:-absent} $DSH_SESSION_ID $DSH_SHELL"',
        description: 'Show the environment',
      });
      expect(text(result)).toBe('from-image fixed allowed absent env-check 1');
    } finally {
      delete process.env.MY_ALLOWED_TOKEN;
      delete process.env.MY_OTHER_SETTING;
      await session.dispose();
    }
  });

  it('times out and kills the whole tree inside the container', async () => {
    const session = host.openSession({ id: 'timeout-check', cwd: root });
    try {
      const result = await session.call('bash', {
        command: 'sleep 4242 & sleep 4343; echo never',
        description: 'Hang',
        timeoutMs: 500,
      });
      expect(text(result)).toMatch(/^\(no output\)\n\[timed out after 500ms\]\n\[killed by signal: SIG(TERM|KILL)\]$/);
      const left = await containerProcesses(session.id);
      expect(left.filter((line) => /sleep (4242|4343)/.test(line))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it('an abort kills the tree inside the container and answers tool call aborted', async () => {
    const session = host.openSession({ id: 'abort-check', cwd: root });
    try {
      const controller = new AbortController();
      const call = session.call('bash', { command: 'echo go; sleep 5151', description: 'Hang' }, {
        signal: controller.signal,
        onProgress: () => controller.abort(),
      });
      expect(text(await call)).toBe('Error: tool call aborted');
      expect((await containerProcesses(session.id)).filter((line) => line.includes('sleep 5151'))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it('kills what a finished command left behind, as the local shell does', async () => {
    const session = host.openSession({ id: 'leftover-check', cwd: root });
    try {
      const result = await session.call('bash', { command: 'sleep 4545 & echo started', description: 'Leave a job' });
      expect(text(result)).toBe(
        'started\n[killed 1 leftover process when the command ended; use run_in_background to keep one running]',
      );
      const left = await containerProcesses(session.id);
      expect(left.filter((line) => line.includes('sleep 4545'))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it('refuses escalation with an error that names container mode', async () => {
    const result = await host.call('bash', {
      command: 'true',
      description: 'Escalate',
      sandbox_permissions: 'danger-full-access',
      justification: 'need it',
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Error: sandbox escalation is refused in container mode/);
  });
});
