// Secret redaction and progress collapse end to end: real bash, real PTY,
// real bwrap, through the host — one-shot, background, persistent, sandboxed.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost, type EnvironmentOptions, type ToolProgress } from '../../src/index.js';
import { sandboxedEnvironment } from '../../src/plugins/sandboxed.environment.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** A credential-shaped variable of the server's environment, passed through to commands. */
const ENV_NAME = 'FILTERS_TEST_API_TOKEN';
const ENV_SECRET = 'env-secret-7f3a9c1e';
const CONFIGURED = 'configured-secret-42x';
/** Prints CONFIGURED in two writes with a pause between, so it arrives as two pipe chunks. */
const SPLIT_PRINT = `printf 'value=${CONFIGURED.slice(0, 9)}'; sleep 0.05; printf '${CONFIGURED.slice(9)} done\\n'`;
const PROGRESS = `for i in $(seq 1 10000); do printf '\\rDownloading %d%%' $i; done; echo; echo last real line`;

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-filters-')));
  process.env[ENV_NAME] = ENV_SECRET;
});
afterAll(() => {
  delete process.env[ENV_NAME];
  rmSync(root, { recursive: true, force: true });
});

function options(extra: Partial<EnvironmentOptions> = {}): EnvironmentOptions {
  return {
    workspace: root,
    executor: { graceMs: 200, maxOutputBytes: 2_000, allowEnv: [ENV_NAME], keepSpills: false },
    redact: { values: [CONFIGURED] },
    ...extra,
  };
}

describe('output filters: one-shot and background', () => {
  let host: DshHost;
  beforeAll(async () => {
    host = await createHost(...localEnvironment(options()));
  });
  afterAll(() => host.dispose());

  it('redacts an allow-listed credential variable by name and a configured value split across chunks', async () => {
    const result = await host.call('bash', { command: `echo "token=$${ENV_NAME}"; ${SPLIT_PRINT}`, description: 'Print secrets' });
    expect(text(result)).toBe(`token=[redacted:${ENV_NAME}]\nvalue=[redacted] done`);
    expect(JSON.stringify(result.value)).not.toContain(CONFIGURED);
  });

  it('redacts a built-in pattern on stderr', async () => {
    const result = await host.call('bash', { command: 'echo "Authorization: Bearer abc.def.ghi" >&2', description: 'Leak a header' });
    expect(text(result)).toBe('[stderr]\nAuthorization: Bearer [redacted]');
  });

  it('writes the spill file redacted but with its escape codes and redraws', async () => {
    const command = `echo ${CONFIGURED}; printf '\\033[31mred\\033[0m\\r\\n'; head -c 5000 /dev/zero | tr '\\0' 'y'; echo`;
    const result = await host.call('bash', { command, description: 'Spill' });
    const value = result.value as { stdoutSpillPath?: string; stdout: string };
    expect(value.stdoutSpillPath).toBeDefined();
    const spill = readFileSync(value.stdoutSpillPath!, 'utf8');
    expect(spill.startsWith('[redacted]\n\x1b[31mred\x1b[0m\r\n')).toBe(true);
    expect(spill).not.toContain(CONFIGURED);
    expect(text(result)).toContain(`[output truncated; full output: ${value.stdoutSpillPath}]`);
  });

  it('collapses 10,000 progress updates before the tail is cut, so the last real lines stay', async () => {
    const result = await host.call('bash', { command: PROGRESS, description: 'Progress bar' });
    expect(text(result)).toBe('Downloading 10000%\nlast real line\n[collapsed 9999 progress updates]');
    expect((result.value as { stdoutTruncated: boolean }).stdoutTruncated).toBe(false);
  });

  it('strips escape codes and CRLF from one-shot output', async () => {
    const result = await host.call('bash', { command: `printf '\\033]0;title\\007\\033[1mbold\\033[0m\\r\\nnext\\n'`, description: 'Colours' });
    expect(text(result)).toBe('bold\nnext');
  });

  it('redacts error texts at the host boundary', async () => {
    const result = await host.call('bash', { command: 'true', description: 'Bad dir', workdir: `/nonexistent/${CONFIGURED}` });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: workdir does not exist: /nonexistent/[redacted]');
  });

  it('redacts progress messages', async () => {
    const seen: ToolProgress[] = [];
    await host.call('bash', { command: `echo ${CONFIGURED}; sleep 0.6`, description: 'Slow' }, { onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((p) => p.lastLine)).toContain('[redacted]');
  });

  it('redacts and collapses task_output, and redacts the completion notice', async () => {
    const session = host.openSession({ cwd: root });
    const notices: string[] = [];
    let noticed!: () => void;
    const leakyNoticed = new Promise<void>((resolve) => (noticed = resolve));
    session.onNotice((notice) => {
      notices.push(notice);
      if (notice.includes('(bash: label [redacted])')) noticed();
    });
    const started = await session.call('bash', { command: `${SPLIT_PRINT}; ${PROGRESS}`, description: 'Background', run_in_background: true });
    const id = /started background task (\S+)/.exec(text(started))![1]!;
    const output = await session.call('task_output', { task_id: id, wait: true, timeout_ms: 30_000 });
    expect(text(output)).toBe(
      'value=[redacted] done\nDownloading 10000%\nlast real line\n[collapsed 9999 progress updates]\n[status: completed, exit code: 0]',
    );
    const leaky = await session.call('bash', { command: 'true', description: `label ${CONFIGURED}`, run_in_background: true });
    expect(text(leaky)).toMatch(/^started background task \S+$/);
    await leakyNoticed;
    await session.dispose();
    expect(notices.join('\n')).not.toContain(CONFIGURED);
  });
});

describe('output filters: persistent shell', () => {
  let host: DshHost;
  beforeAll(async () => {
    host = await createHost(...localEnvironment(options({ shell: 'persistent', persistent: { maxOutputChars: 2_000 } })));
  });
  afterAll(() => host.dispose());

  it('redacts secrets and collapses progress on the PTY', async () => {
    const session = host.openSession({ cwd: root });
    try {
      // The PTY's env has no allow-list here: the value comes from a file, and is still named.
      writeFileSync(path.join(root, 'token.txt'), `t=${ENV_SECRET}\n`);
      const secrets = await session.call('bash', { command: `cat token.txt; ${SPLIT_PRINT}` });
      expect(text(secrets)).toBe(`t=[redacted:${ENV_NAME}]\nvalue=[redacted] done`);
      const progress = await session.call('bash', { command: PROGRESS });
      expect(text(progress)).toBe('Downloading 10000%\nlast real line\n[collapsed 9999 progress updates]');
    } finally {
      await session.dispose();
    }
  });
});

describeWithBwrap(`output filters: sandboxed composition${NEEDS_BWRAP}`, () => {
  let host: DshHost;
  let persistentHost: DshHost;
  beforeAll(async () => {
    host = await createHost(...sandboxedEnvironment(options()));
    persistentHost = await createHost(...sandboxedEnvironment(options({ shell: 'persistent' })));
  });
  afterAll(() => Promise.all([host.dispose(), persistentHost.dispose()]));

  it('redacts and collapses a confined background task', async () => {
    const session = host.openSession({ cwd: root });
    const started = await session.call('bash', { command: `${SPLIT_PRINT}; ${PROGRESS}`, description: 'Confined task', run_in_background: true });
    const id = /started background task (\S+)/.exec(text(started))![1]!;
    const output = await session.call('task_output', { task_id: id, wait: true, timeout_ms: 30_000 });
    expect(text(output)).toBe(
      'value=[redacted] done\nDownloading 10000%\nlast real line\n[collapsed 9999 progress updates]\n[status: completed, exit code: 0]',
    );
    await session.dispose();
  });

  it('redacts and collapses the confined persistent shell', async () => {
    const session = persistentHost.openSession({ cwd: root });
    try {
      const result = await session.call('bash', { command: `${SPLIT_PRINT}; ${PROGRESS}` });
      expect(text(result)).toBe('value=[redacted] done\nDownloading 10000%\nlast real line\n[collapsed 9999 progress updates]');
    } finally {
      await session.dispose();
    }
  });

  it('redacts and collapses a confined one-shot command', async () => {
    const session = host.openSession({ cwd: root });
    const result = await session.call('bash', { command: `echo "t=$${ENV_NAME}"; ${SPLIT_PRINT}; ${PROGRESS}`, description: 'Confined' });
    expect(text(result)).toBe(
      `t=[redacted:${ENV_NAME}]\nvalue=[redacted] done\nDownloading 10000%\nlast real line\n[collapsed 9999 progress updates]`,
    );
    await session.dispose();
  });
});
