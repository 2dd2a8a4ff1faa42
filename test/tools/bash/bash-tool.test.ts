import { createHost, replace, ShellExecutor, type DshHost, type HostSession } from '../../../src/index.js';
import { ScriptedApprovalAnswerer, ScriptedConfinement, ScriptedExecutor, testingEnvironment } from '../../../src/testing.js';
import { bashToolModule } from '../../../src/tools/bash/bash.module.js';
import { taskRuntimeModule } from '../../../src/providers/tasks/tasks.module.js';
import { BashTool } from '../../../src/tools/bash/bash.tool.js';
import type { BashArgs } from '../../../src/tools/bash/bash-args.js';
import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { TaskRuntime } from '../../../src/providers/tasks/task-runtime.js';
import { startFake } from '../../support/fake-task-process.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** The one-shot bash's arguments as its schema shows them without a sandbox. */
const VALID = 'command, description, timeoutMs, workdir, run_in_background';

describe('bash tool (scripted executor)', () => {
  let host: DshHost;
  let executor: ScriptedExecutor;
  let session: HostSession;
  beforeEach(async () => {
    executor = new ScriptedExecutor();
    host = await createHost(...testingEnvironment({ executor, dshHome: '/home/agent/.dsh' }));
    session = host.openSession({ id: 's-1', cwd: '/work/repo', jsonlPath: '/logs/s-1.jsonl' });
  });
  afterEach(() => host.dispose());

  it.each([
    [{ description: 'Do it' }, 'invalid command: expected a non-empty string'],
    [{ command: '   ', description: 'Do it' }, 'invalid command: expected a non-empty string'],
    [{ command: 42, description: 'Do it' }, 'invalid command: expected a non-empty string'],
    [{ command: 'ls' }, 'invalid description: expected a non-empty string'],
    [{ command: 'ls', description: '' }, 'invalid description: expected a non-empty string'],
    [{ command: 'ls', description: 'List', timeoutMs: -5 }, 'invalid timeoutMs: expected a positive number, got -5'],
    [{ command: 'ls', description: 'List', timeoutMs: '100' }, 'invalid timeoutMs: expected a positive number, got "100"'],
    [{ command: 'ls', description: 'List', timeoutMs: 0 }, 'invalid timeoutMs: expected a positive number, got 0'],
    // Without a sandbox the schema hides the escalation fields: giving one is an unknown argument.
    [{ command: 'ls', description: 'List', justification: 'because' }, `unknown argument "justification" for bash; valid arguments: ${VALID}`],
    [
      { command: 'ls', description: 'List', sandbox_permissions: 'workspace-write', justification: 'Needs to write.' },
      `unknown argument "sandbox_permissions" for bash; valid arguments: ${VALID}`,
    ],
    [{ command: 'ls', description: 'List', timeout_ms: 500 }, `unknown argument "timeout_ms" for bash; valid arguments: ${VALID}`],
  ])('rejects %j with a stable message', async (args, message) => {
    const result = await session.call<string>('bash', args);
    expect(result).toEqual({ content: [{ type: 'text', text: `Error: ${message}` }], isError: true });
    expect(executor.runs).toEqual([]);
  });

  it('runs in the session cwd by default and resolves a relative workdir against it', async () => {
    await session.call('bash', { command: 'pwd', description: 'Show the directory' });
    await session.call('bash', { command: 'pwd', description: 'Show the directory', workdir: 'pkg/a' });
    await session.call('bash', { command: 'pwd', description: 'Show the directory', workdir: '/abs' });
    expect(executor.runs.map((spec) => spec.workdir)).toEqual(['/work/repo', '/work/repo/pkg/a', '/abs']);
  });

  it('collects the managed DSH_* overlay for the calling session on every call', async () => {
    await session.call('bash', { command: 'env', description: 'Print the environment' });
    expect(executor.runs[0]!.dshEnv).toEqual({
      DSH_HOME: '/home/agent/.dsh',
      DSH_SHELL: '1',
      DSH_SESSION_ID: 's-1',
      DSH_SESSION_JSONL: '/logs/s-1.jsonl',
    });
  });

  it('refuses extra keys such as env or stdin and runs nothing', async () => {
    const result = await session.call<string>('bash', { command: 'ls', description: 'List files', env: { PATH: '/evil' }, stdin: 'x' });
    expect(text(result)).toBe(`Error: unknown argument "env" for bash; valid arguments: ${VALID}`);
    expect(executor.runs).toEqual([]);
  });

  it('returns the typed value alongside the text', async () => {
    executor.on('false', { exitCode: 1 });
    const result = await session.call('bash', { command: 'false', description: 'Fail on purpose' });
    expect(text(result)).toBe('(no output)\n[exit code: 1]');
    expect(result.isError).toBeUndefined();
    expect(result.value).toMatchObject({ kind: 'foreground', exitCode: 1, signal: null });
  });

  it('maps an aborted run to the abort error', async () => {
    executor.on('sleep 9', { aborted: true, exitCode: null, signal: 'SIGTERM' });
    const result = await session.call('bash', { command: 'sleep 9', description: 'Wait a while' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Error: tool call aborted' }], isError: true });
  });

  it.each([false, true])(
    'answers an abort that lands after the call started with the abort error and runs nothing (background: %s)',
    async (background) => {
      const tool = host.get(BashTool);
      const controller = new AbortController();
      const args = { command: 'ls', description: 'List files', run_in_background: background } as BashArgs;
      const pending = tool.run(args, { signal: controller.signal, callId: 'abort-early' });
      controller.abort();
      await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 'Error: tool call aborted' }], isError: true });
      expect(executor.runs).toEqual([]);
      expect(executor.starts).toEqual([]);
    },
  );

  it('answers an abort the executor refused before spawning with the abort error', async () => {
    const controller = new AbortController();
    executor.on('sleep 9', () => {
      // What LocalShellExecutor does when the abort lands before it spawns.
      controller.abort();
      throw new Error('command aborted before it started');
    });
    const result = await session.call('bash', { command: 'sleep 9', description: 'Wait a while' }, { signal: controller.signal });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Error: tool call aborted' }], isError: true });
  });

  it('starts a background task owned by the calling session', async () => {
    executor.on('make', { stdout: 'built\n' });
    const result = await session.call('bash', { command: 'make', description: 'Build it', run_in_background: true });
    expect(text(result)).toBe('started background task bash-1');
    expect(result.value).toEqual({ kind: 'background', taskId: 'bash-1' });
    expect(executor.starts[0]).toMatchObject({ command: 'make', workdir: '/work/repo' });
    expect(executor.starts[0]!.dshEnv).toMatchObject({ DSH_SESSION_ID: 's-1' });
  });

  it('describes its schema without the sandbox fields when the executor does not sandbox', () => {
    const schema = host.tools().find((tool) => tool.name === 'bash')!.inputSchema;
    const properties = Object.keys(schema.properties as object);
    expect(properties).toEqual(['command', 'description', 'timeoutMs', 'workdir', 'run_in_background']);
    expect(schema.required).toEqual(['command', 'description']);
  });

  it('offers the presenters: exit pill out of the body, malformed args give undefined', async () => {
    executor.on('false', { stdout: 'x\n', exitCode: 2 });
    const tool = host.get(BashTool);
    const result = await session.call('bash', { command: 'false', description: 'Fail on purpose' });
    expect(tool.presentResult(result)).toEqual({ body: 'x', exitCode: 2, signal: undefined, timedOut: false, isError: false });
    expect(tool.presentCall({ command: 'ls', description: 'List', workdir: 'a' })).toEqual({
      title: 'bash',
      command: 'ls',
      description: 'List',
      cwd: 'a',
    });
    for (const bad of [null, 3, 'ls', {}, { command: 5 }]) expect(tool.presentCall(bad)).toBeUndefined();
  });
});

describe('bash tool configuration', () => {
  it('drops run_in_background from the schema and refuses a forced call (an unknown argument) when disabled', async () => {
    const executor = new ScriptedExecutor();
    const [core, env, shell, answerers, runtime, taskTools] = testingEnvironment({ executor });
    const host = await createHost(core!, env!, shell!, answerers!, runtime!, taskTools!, bashToolModule({ enableRunInBackground: false }));
    try {
      const schema = host.tools().find((tool) => tool.name === 'bash')!.inputSchema;
      expect(Object.keys(schema.properties as object)).not.toContain('run_in_background');
      const result = await host.call('bash', { command: 'ls', description: 'List files', run_in_background: true });
      expect(text(result)).toBe('Error: unknown argument "run_in_background" for bash; valid arguments: command, description, timeoutMs, workdir');
      expect(executor.starts).toEqual([]);
    } finally {
      await host.dispose();
    }
  });

  it('refuses a bad or misspelt config at composition instead of silently keeping the default', () => {
    expect(() => bashToolModule({ enableRunInBackgrond: false } as object)).toThrow(
      'invalid bash tool config: enableRunInBackgrond is not a known key',
    );
    expect(() => bashToolModule({ enableRunInBackground: 'no' } as never)).toThrow(
      'invalid bash tool config: enableRunInBackground must be true or false, got "no"',
    );
    expect(() => bashToolModule({ enableRunInBackground: undefined })).not.toThrow();
  });

  it('picks up a task runtime loaded after it was activated', async () => {
    const executor = new ScriptedExecutor();
    const [core, env, shell, planner] = testingEnvironment({ executor });
    const host = await createHost(core!, env!, shell!, planner!, bashToolModule());
    try {
      const args = { command: 'make', description: 'Build it', run_in_background: true };
      expect(text(await host.call('bash', args))).toMatch(/^Error: background tasks unavailable/);
      await host.load(taskRuntimeModule());
      expect(text(await host.call('bash', args))).toBe('started background task bash-1');
    } finally {
      await host.dispose();
    }
  });

  it('refuses a background call when no task runtime is loaded', async () => {
    const executor = new ScriptedExecutor();
    const [core, env, shell, planner] = testingEnvironment({ executor });
    const host = await createHost(core!, env!, shell!, planner!, bashToolModule());
    try {
      const result = await host.call('bash', { command: 'ls', description: 'List files', run_in_background: true });
      expect(text(result)).toBe('Error: background tasks unavailable: load a task runtime and the task tools');
    } finally {
      await host.dispose();
    }
  });
});

describe('bash tool escalation (sandboxing executor)', () => {
  async function sandboxedHost(decisions: Array<'allowed-once' | 'rejected' | 'cancelled' | undefined>) {
    const executor = new ScriptedExecutor({}, {}, 'read-only');
    const answerer = new ScriptedApprovalAnswerer(decisions);
    const host = await createHost(...testingEnvironment({ answerers: [answerer], executor }));
    return { host, executor, answerer };
  }
  const escalate = { command: 'touch a', description: 'Create a file', sandbox_permissions: 'workspace-write', justification: 'Writes a file.' };

  it('advertises the escalation fields', async () => {
    const { host } = await sandboxedHost([]);
    try {
      const schema = host.tools().find((tool) => tool.name === 'bash')!.inputSchema;
      expect(Object.keys(schema.properties as object)).toEqual(expect.arrayContaining(['sandbox_permissions', 'justification']));
    } finally {
      await host.dispose();
    }
  });

  it('runs an approved escalation under the requested mode, for that call only', async () => {
    const { host, executor, answerer } = await sandboxedHost(['allowed-once']);
    try {
      const session = host.openSession({ id: 'esc', cwd: '/repo' });
      const result = await session.call('bash', escalate);
      expect(result.isError).toBeUndefined();
      expect(answerer.requests).toHaveLength(1);
      expect(answerer.requests[0]).toMatchObject({ tool: 'bash' });
      await session.call('bash', { command: 'touch b', description: 'Create a file' });
      expect(executor.runs.map((spec) => ScriptedConfinement.modeOf(spec))).toEqual(['workspace-write', 'read-only']);
    } finally {
      await host.dispose();
    }
  });

  it.each([
    ['rejected', 'Error: escalation rejected by the user'],
    ['cancelled', 'Error: escalation cancelled'],
    [undefined, 'Error: escalation rejected: no approver gave a decision'],
  ] as const)('answers a %s escalation with a stable error and runs nothing', async (decision, message) => {
    const { host, executor } = await sandboxedHost([decision]);
    try {
      const result = await host.call('bash', escalate);
      expect(result).toEqual({ content: [{ type: 'text', text: message }], isError: true });
      expect(executor.runs).toEqual([]);
    } finally {
      await host.dispose();
    }
  });

  it('refuses a background call over the admission limit before asking the user', async () => {
    const executor = new ScriptedExecutor({}, {}, 'read-only');
    const answerer = new ScriptedApprovalAnswerer(['allowed-once']);
    const runtime = new LocalTaskRuntime({ maxConcurrentTasksPerOwner: 1 });
    const host = await createHost(
      ...testingEnvironment({ answerers: [answerer], executor }),
      replace(TaskRuntime, runtime),
    );
    try {
      await startFake(runtime);
      const result = await host.call('bash', { ...escalate, run_in_background: true });
      expect(text(result)).toMatch(/^Error: too many background tasks: the unowned pool already has 1 running \(limit 1\)/);
      expect(answerer.requests).toHaveLength(0);
      expect(executor.starts).toEqual([]);
    } finally {
      await host.dispose();
      await runtime.dispose();
    }
  });

  it.each([
    [{ justification: 'because' }, 'invalid escalation: justification is only valid together with sandbox_permissions'],
    [{ sandbox_permissions: 'workspace-write' }, 'invalid escalation: sandbox_permissions requires a justification'],
    [{ sandbox_permissions: 'workspace-write', justification: ' ' }, 'invalid justification: expected a non-empty sentence'],
  ])('rejects the escalation fields %j with a stable message, asking no one', async (fields, message) => {
    const { host, executor, answerer } = await sandboxedHost(['allowed-once']);
    try {
      const result = await host.call('bash', { command: 'ls', description: 'List', ...fields });
      expect(result).toEqual({ content: [{ type: 'text', text: `Error: ${message}` }], isError: true });
      expect(answerer.requests).toEqual([]);
      expect(executor.runs).toEqual([]);
    } finally {
      await host.dispose();
    }
  });

  it('refuses a mode that is not strictly wider than the current one', async () => {
    const executor = new ScriptedExecutor({}, {}, 'workspace-write');
    const host = await createHost(...testingEnvironment({ executor }));
    try {
      const result = await host.call('bash', escalate);
      expect(result).toEqual({
        content: [
          { type: 'text', text: 'Error: sandbox escalation to "workspace-write" is not strictly wider than this call\'s current "workspace-write" mode' },
        ],
        isError: true,
      });
      expect(executor.runs).toEqual([]);
    } finally {
      await host.dispose();
    }
  });
});
