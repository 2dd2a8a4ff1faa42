// What the model sees from the one-shot `bash` tool, checked the same way on
// every backend: the same calls and the same expected texts for the local
// shell, the bwrap sandbox and a session container. A backend that needs a
// different expectation here has a seam that leaks.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, type DshHost, type ExecutorConfig, type HostSession, type PluginModule } from '../../src/index.js';

/** Executor limits small enough for the truncation and timeout cases. */
export const CONTRACT_EXECUTOR: Partial<ExecutorConfig> = Object.freeze({ maxOutputBytes: 1000, graceMs: 300 });

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** Registers the contract's cases; `environment` composes the backend for a workspace with `CONTRACT_EXECUTOR`. */
export function bashToolContract(environment: (workspace: string) => PluginModule[]): void {
  let host: DshHost;
  let root: string;
  let session: HostSession;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-contract-')));
    host = await createHost(...environment(root));
    session = host.openSession({ id: 'contract', cwd: root });
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });
  const call = (args: Record<string, unknown>) => session.call<string>('bash', { description: 'Contract case', ...args });

  it('prints stdout, a [stderr] section and the exit marker, in that order', async () => {
    const result = await call({ command: 'echo out; echo err >&2; exit 3' });
    expect(text(result)).toBe('out\n[stderr]\nerr\n[exit code: 3]');
    expect(result.isError).toBeUndefined();
  });

  it('starts the marker on its own line after output without a newline, and says (no output) for silence', async () => {
    expect(text(await call({ command: 'printf partial; exit 1' }))).toBe('partial\n[exit code: 1]');
    expect(text(await call({ command: 'true' }))).toBe('(no output)');
  });

  it("resolves a relative workdir against the session's directory and says why an unusable one cannot be used", async () => {
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    expect(text(await call({ command: 'pwd', workdir: 'sub' }))).toBe(path.join(root, 'sub'));
    const missing = await call({ command: 'true', workdir: 'no-such-dir' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe(`Error: workdir does not exist: ${path.join(root, 'no-such-dir')}`);
    writeFileSync(path.join(root, 'a-file'), '');
    expect(text(await call({ command: 'true', workdir: 'a-file' }))).toBe(`Error: workdir is not a directory: ${path.join(root, 'a-file')}`);
  });

  it("gives the command its session's DSH_* overlay and none of the server's credentials", async () => {
    process.env.CONTRACT_API_TOKEN = 'server-secret';
    try {
      expect(text(await call({ command: 'echo "$DSH_SESSION_ID ${CONTRACT_API_TOKEN:-absent}"' }))).toBe('contract absent');
    } finally {
      delete process.env.CONTRACT_API_TOKEN;
    }
  });

  it('keeps the tail of big output and names a spill file the next call can read', async () => {
    const first = text(await call({ command: 'seq 1 2000' }));
    const spill = /\n1999\n2000\n\[output truncated; full output: (\S+)\]$/.exec(first)?.[1];
    expect(spill).toBeDefined();
    expect(text(await call({ command: `wc -l < ${spill}; tail -n 1 ${spill}` }))).toBe('2000\n2000');
  });

  it('kills and reports what a finished command left running, in its result and at the end of a task', async () => {
    const notice = '[killed 1 leftover process when the command ended; use run_in_background to keep one running]';
    expect(text(await call({ command: 'sleep 30 & echo started' }))).toBe(`started\n${notice}`);
    const started = text(await call({ command: 'sleep 30 & echo started', run_in_background: true }));
    const id = /^started background task (\S+)$/.exec(started)?.[1];
    const output = text(await session.call('task_output', { task_id: id!, wait: true, timeout_ms: 30_000 }));
    expect(output).toBe(`started\n${notice}\n[status: completed, exit code: 0]`);
  });

  it('runs a command over the 131,071-byte argv limit, passed as data', async () => {
    const command = `: ${'x'.repeat(200 * 1024)}\necho "$0 $#"; exit 4`;
    expect(text(await call({ command }))).toBe('bash 0\n[exit code: 4]');
  });

  it('collapses progress redraws and says how many, in a result and in a task read', async () => {
    const command = "printf 'step 1\\rstep 2\\rstep 3\\ndone\\n'";
    expect(text(await call({ command }))).toBe('step 3\ndone\n[collapsed 2 progress updates]');
    const started = text(await call({ command, run_in_background: true }));
    const id = /^started background task (\S+)$/.exec(started)?.[1];
    const output = text(await session.call('task_output', { task_id: id!, wait: true, timeout_ms: 30_000 }));
    expect(output).toBe('step 3\ndone\n[collapsed 2 progress updates]\n[status: completed, exit code: 0]');
  });

  it('times out a model-chosen timeout with the timeout and signal lines', async () => {
    const result = await call({ command: 'sleep 30; echo never', timeoutMs: 400 });
    expect(text(result)).toMatch(/^\(no output\)\n\[timed out after 400ms\]\n\[killed by signal: SIG(TERM|KILL)\]$/);
  });


  it('reports a command killed by a signal as that signal, and an exit of 128+n as that code', async () => {
    expect(text(await call({ command: 'kill -TERM $$' }))).toBe('(no output)\n[killed by signal: SIGTERM]');
    expect(text(await call({ command: 'echo before; kill -KILL $$' }))).toBe('before\n[killed by signal: SIGKILL]');
    expect(text(await call({ command: 'exit 143' }))).toBe('(no output)\n[exit code: 143]');
  });

  it('after a timeout: only the timeout line for a command that traps TERM and exits 0, SIGKILL for one that ignores TERM or stopped itself', async () => {
    const trapped = await call({ command: "trap 'echo caught; exit 0' TERM; sleep 30 & wait", timeoutMs: 400 });
    expect(text(trapped)).toBe('caught\n[timed out after 400ms]');
    const ignored = await call({ command: "trap '' TERM; sleep 30", timeoutMs: 400 });
    expect(text(ignored)).toBe('(no output)\n[timed out after 400ms]\n[killed by signal: SIGKILL]');
    const stopped = await call({ command: 'echo before; kill -STOP $$; echo never', timeoutMs: 400 });
    expect(text(stopped)).toBe('before\n[timed out after 400ms]\n[killed by signal: SIGKILL]');
  });

  it('answers an abort with the abort error', async () => {
    const controller = new AbortController();
    const session = host.openSession({ id: 'contract-abort', cwd: root });
    try {
      const result = await session.call('bash', { command: 'echo go; sleep 30', description: 'Hang' }, {
        signal: controller.signal,
        onProgress: () => controller.abort(),
      });
      expect(text(result)).toBe('Error: tool call aborted');
    } finally {
      await session.dispose();
    }
  });

  it('runs a background task whose output the task tools read', async () => {
    const session = host.openSession({ id: 'contract-task', cwd: root });
    try {
      const started = text(await session.call('bash', { command: 'echo one; echo two >&2', description: 'Task', run_in_background: true }));
      const id = /^started background task (\S+)$/.exec(started)?.[1];
      expect(id).toBeDefined();
      const output = text(await session.call('task_output', { task_id: id!, wait: true, timeout_ms: 30_000 }));
      expect(output).toBe('one\n[stderr]\ntwo\n[status: completed, exit code: 0]');
    } finally {
      await session.dispose();
    }
  });

  it('fails a background task whose workdir is missing, with the reason in its output and status', async () => {
    const started = text(await call({ command: 'echo never', workdir: 'gone', run_in_background: true }));
    const id = /^started background task (\S+)$/.exec(started)?.[1];
    const reason = `workdir does not exist: ${path.join(root, 'gone')}`;
    const output = text(await session.call('task_output', { task_id: id!, wait: true, timeout_ms: 30_000 }));
    expect(output).toBe(`${reason}\n[status: failed, error: ${reason}]`);
  });
}
