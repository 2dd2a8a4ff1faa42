// The sandboxed composition end to end: the real bash tool, executor, policy,
// bwrap provider and approval service, through the host.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  APPROVAL_KINDS,
  Confinement,
  ApprovalService,
  createHost,
  replace,
  SandboxPolicy,
  SandboxProvider,
  ShellExecutor,
  type ApprovalAnswerer,
  type ApprovalRequest,
  type DshHost,
  type HostSession,
} from '../../src/index.js';
import { sandboxedEnvironment } from '../../src/plugins/sandboxed.environment.js';
import { ScriptedApprovalAnswerer } from '../../src/testing.js';
import { ESCALATION_HINT } from '../../src/tools/bash/bash-render.js';
import { tempWorkspace, UnavailableProvider, uniqueName } from '../support/sandbox-test-kit.js';
import { survivors } from '../support/shell-test-kit.js';
import { uniqueSleep, waitUntilGone, waitUntilRunning } from '../support/process-table.js';
import { bwrapUsable, describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const escalate = { sandbox_permissions: 'workspace-write', justification: 'The build writes its output here.' };

describeWithBwrap(`sandboxedEnvironment${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost;
  let session: HostSession;
  /** What the one bound answerer does in the current test. */
  let current: ApprovalAnswerer;
  const delegate: ApprovalAnswerer = { name: 'delegate', kinds: APPROVAL_KINDS, answer: (request: ApprovalRequest) => current.answer(request) };

  beforeAll(async () => {
    ws = tempWorkspace('dsh-sandboxed-env-');
    host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, executor: { graceMs: 200 }, answerers: [delegate] }));
  });
  afterAll(async () => {
    await host.dispose();
    ws.remove();
  });
  beforeEach(() => {
    current = new ScriptedApprovalAnswerer();
    session = host.openSession({ cwd: ws.dir });
  });
  afterEach(() => session.dispose());

  const touch = (name: string, extra: object = {}) =>
    session.call('bash', { command: `touch ${name}`, description: 'Create a file here', ...extra });

  it('mounts the sandboxed executor and advertises escalation in the schema', () => {
    expect(host.get(Confinement).defaultMode).toBe('read-only');
    const bash = host.tools().find((tool) => tool.name === 'bash')!;
    expect(Object.keys((bash.inputSchema as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['sandbox_permissions', 'justification']),
    );
  });

  it('read-only: a write is denied with the sandbox marker and hint; output and /dev/null work', async () => {
    const denied = await touch('x');
    expect(text(denied)).toBe(
      `[stderr]\ntouch: cannot touch 'x': Read-only file system\n` +
        `[sandbox: file access denied under read-only mode]\n${ESCALATION_HINT}\n[exit code: 1]`,
    );
    expect(denied.isError).toBeUndefined();
    const ok = await session.call('bash', { command: 'echo hi; echo x > /dev/null', description: 'Print a greeting' });
    expect(text(ok)).toBe('hi');
  });

  it('allowed-once runs that call only under the wider mode; the next call is denied again', async () => {
    const answerer = new ScriptedApprovalAnswerer(['allowed-once']);
    current = answerer;
    const escalated = await touch('once', escalate);
    expect(text(escalated)).toBe('(no output)');
    expect(existsSync(path.join(ws.dir, 'once'))).toBe(true);
    expect(answerer.requests[0]).toMatchObject({ tool: 'bash', session: { id: session.id } });
    expect(answerer.requests[0]!.reason).toContain('touch once');
    expect(answerer.requests[0]!.reason).toContain(escalate.justification);

    const next = await touch('twice');
    expect(text(next)).toContain('[sandbox: file access denied under read-only mode]');
    expect(existsSync(path.join(ws.dir, 'twice'))).toBe(false);
  });

  it.each([
    ['rejected', 'Error: escalation rejected by the user'],
    ['cancelled', 'Error: escalation cancelled'],
  ] as const)('%s: the call fails with the stable message and nothing runs', async (decision, message) => {
    current = new ScriptedApprovalAnswerer([decision]);
    const name = uniqueName('never');
    const result = await touch(name, escalate);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: message }] });
    expect(existsSync(path.join(ws.dir, name))).toBe(false);
  });

  it('refuses an escalation that is not strictly wider than the session mode', async () => {
    host.get(SandboxPolicy).setMode(session, 'workspace-write');
    const answerer = new ScriptedApprovalAnswerer(['allowed-once']);
    current = answerer;
    const result = await touch('same', escalate);
    expect(text(result)).toBe(
      'Error: sandbox escalation to "workspace-write" is not strictly wider than this call\'s current "workspace-write" mode',
    );
    expect(answerer.requests).toEqual([]);
    // The session override itself applies to plain calls.
    expect(text(await touch('allowed'))).toBe('(no output)');
  });

  it('policy never rejects without asking; the audit log has every request and decision', async () => {
    const approvals = host.get(ApprovalService);
    const before = approvals.audit().length;
    approvals.setPolicy(session, 'never');
    const answerer = new ScriptedApprovalAnswerer(['allowed-once']);
    current = answerer;
    const result = await touch('policy', escalate);
    expect(text(result)).toBe('Error: escalation rejected by policy never');
    expect(answerer.requests).toEqual([]);
    const records = approvals.audit().slice(before);
    expect(records).toEqual([
      expect.objectContaining({
        request: expect.objectContaining({ tool: 'bash', sessionId: session.id }),
        decision: 'rejected',
        answeredBy: 'policy:never',
      }),
    ]);
  });

  it('workspace-write by default: writes in the workspace and /tmp, nowhere else', async () => {
    const wide = await createHost(
      ...sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'workspace-write' } }),
    );
    const outside = `/usr/local/${uniqueName('dsh-test')}`;
    const inTmp = uniqueName('/tmp/dsh-env');
    try {
      const call = (command: string) => wide.call('bash', { command, description: 'Write some files' });
      expect(text(await call(`touch inside ${inTmp}`))).toBe('(no output)');
      expect(existsSync(path.join(ws.dir, 'inside'))).toBe(true);
      const denied = await call(`touch ${outside}`);
      expect(text(denied)).toContain('[sandbox: file access denied under workspace-write mode]');
      expect(existsSync(outside)).toBe(false);
    } finally {
      await wide.dispose();
      rmSync(outside, { force: true });
      rmSync(inTmp, { force: true });
    }
  });
});

describe('sandboxedEnvironment without answerers or backend', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    ws = tempWorkspace('dsh-sandboxed-env-');
  });
  afterEach(() => ws.remove());

  it('escalation is unavailable when no approval answerer is configured', async () => {
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir }));
    try {
      const result = await host.call('bash', { command: 'touch x', description: 'Create a file here', ...escalate });
      expect(text(result)).toBe('Error: escalation unavailable: no approval answerer is configured');
      expect(existsSync(path.join(ws.dir, 'x'))).toBe(false);
      expect(host.get(ApprovalService).audit()).toEqual([expect.objectContaining({ decision: 'unavailable' })]);
    } finally {
      await host.dispose();
    }
  });

  it('fails closed: with no usable backend the call is an isError and nothing spawns', async () => {
    const provider = new UnavailableProvider();
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir }), replace(SandboxProvider, provider));
    try {
      const result = await host.call('bash', { command: 'touch ran', description: 'Create a file here' });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        'Error: sandbox unavailable for read-only mode: bwrap was not found; install the bubblewrap package, ' +
          'or run with --sandbox danger-full-access',
      );
      expect(existsSync(path.join(ws.dir, 'ran'))).toBe(false);
      expect(provider.wraps).toEqual([]);
    } finally {
      await host.dispose();
    }
  });

  it('danger-full-access needs no backend and runs unconfined', async () => {
    const host = await createHost(
      ...sandboxedEnvironment({ workspace: ws.dir, sandbox: { mode: 'danger-full-access' } }),
      replace(SandboxProvider, new UnavailableProvider()),
    );
    try {
      expect(text(await host.call('bash', { command: 'touch ran && echo ok', description: 'Create a file here' }))).toBe('ok');
      expect(existsSync(path.join(ws.dir, 'ran'))).toBe(true);
    } finally {
      await host.dispose();
    }
  });

  (bwrapUsable ? it : it.skip)(`leaves no process behind after a sandboxed timeout, nor after host disposal${NEEDS_BWRAP}`, async () => {
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, executor: { graceMs: 200 } }));
    const sleep = uniqueSleep();
    const lingering = uniqueSleep();
    try {
      const result = await host.call('bash', {
        command: `sleep ${sleep} & sleep ${sleep}`,
        description: 'Sleep past the timeout',
        timeoutMs: 300,
      });
      expect(text(result)).toBe('(no output)\n[timed out after 300ms]\n[killed by signal: SIGTERM]');
      expect(await waitUntilGone(sleep)).toEqual([]);
      const executor = host.get(ShellExecutor);
      await executor.start(executor.checkRequest({ command: `sleep ${lingering}` }));
      expect((await waitUntilRunning(lingering)).length).toBeGreaterThan(0);
    } finally {
      await host.dispose();
    }
    // The executor's lifecycle hook ran on the host's teardown (survivors() also kills stragglers).
    expect(await survivors(lingering, 5000)).toEqual([]);
  });

  it('fails closed for the persistent shell too when the backend cannot confine', async () => {
    const host = await createHost(
      ...sandboxedEnvironment({ workspace: ws.dir, shell: 'persistent' }),
      replace(SandboxProvider, new UnavailableProvider()),
    );
    try {
      const result = await host.openSession({ cwd: ws.dir }).call('bash', { command: 'touch ran' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Error: sandbox unavailable for read-only mode: bwrap was not found/);
      expect(existsSync(path.join(ws.dir, 'ran'))).toBe(false);
    } finally {
      await host.dispose();
    }
  });
});

describeWithBwrap(`the persistent shell under the sandbox${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    ws = tempWorkspace('dsh-sandboxed-pty-');
  });
  afterEach(() => ws.remove());

  it('keeps state between calls and denies writes under read-only, with the denial marker', async () => {
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, shell: 'persistent' }));
    try {
      const session = host.openSession({ cwd: ws.dir });
      expect(text(await session.call('bash', { command: 'cd /tmp && export X=kept' }))).toBe('(no output)');
      expect(text(await session.call('bash', { command: 'echo "$PWD $X"' }))).toBe('/tmp kept');
      const denied = await session.call('bash', { command: `touch ${ws.dir}/x` });
      expect(text(denied).split('\n').slice(-2)).toEqual([
        '[sandbox: file access denied under read-only mode]',
        '[exit code: 1]',
      ]);
      expect(existsSync(path.join(ws.dir, 'x'))).toBe(false);
    } finally {
      await host.dispose();
    }
  });

  it('follows a changed session mode: a narrowed mode confines the next call in a fresh shell', async () => {
    const host = await createHost(
      ...sandboxedEnvironment({ workspace: ws.dir, shell: 'persistent', sandbox: { mode: 'danger-full-access' } }),
    );
    try {
      const session = host.openSession({ cwd: ws.dir });
      expect(text(await session.call('bash', { command: 'touch free && export X=old' }))).toBe('(no output)');
      host.get(SandboxPolicy).setMode(session, 'read-only');
      const denied = await session.call('bash', { command: 'echo "${X-unset}"; touch confined' });
      expect(text(denied).split('\n')).toEqual([
        '[sandbox mode is now read-only: this call ran in a fresh shell in the workspace]',
        'unset',
        expect.stringMatching(/Read-only file system/),
        '[sandbox: file access denied under read-only mode]',
        '[exit code: 1]',
      ]);
      expect(existsSync(path.join(ws.dir, 'confined'))).toBe(false);
      // Unchanged mode: the same shell again, no notice.
      expect(text(await session.call('bash', { command: 'export Y=1; echo "$PWD"' }))).toBe(ws.dir);
      expect(text(await session.call('bash', { command: 'echo "$Y"' }))).toBe('1');
    } finally {
      await host.dispose();
    }
  });

  it('allows writes in the workspace under workspace-write and leaves no process behind', async () => {
    const sleep = uniqueSleep();
    const host = await createHost(
      ...sandboxedEnvironment({ workspace: ws.dir, shell: 'persistent', sandbox: { mode: 'workspace-write' } }),
    );
    try {
      const session = host.openSession({ cwd: ws.dir });
      expect(text(await session.call('bash', { command: 'echo hi > made && cat made' }))).toBe('hi');
      expect(existsSync(path.join(ws.dir, 'made'))).toBe(true);
      await session.call('bash', { command: `sleep ${sleep} &` });
      expect((await waitUntilRunning(sleep)).length).toBeGreaterThan(0);
      await session.dispose();
      expect(await waitUntilGone(sleep)).toEqual([]);
    } finally {
      await host.dispose();
    }
  });
});

