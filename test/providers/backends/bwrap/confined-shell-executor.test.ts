// The local executor confined through the SandboxConfinement, on real bwrap (installed here; runs as root).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BwrapSandboxProvider } from '../../../../src/providers/backends/bwrap/bwrap-sandbox-provider.js';
import type { SandboxConfig } from '../../../../src/providers/backends/bwrap/sandbox-config.js';
import { LocalSandboxPolicy } from '../../../../src/providers/backends/bwrap/local-sandbox-policy.js';
import { SandboxConfinement } from '../../../../src/providers/backends/bwrap/sandbox-confinement.js';
import { SANDBOX_UNAVAILABLE, type SandboxProvider } from '../../../../src/providers/policy/sandbox/sandbox-policy.js';
import { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import type { ExecutorConfig } from '../../../../src/providers/exec/shell/shell-executor.js';
import { pollUntil, processesWith, survivors, uniqueSleep } from '../../../support/shell-test-kit.js';
import { planConfined, runConfined, tempWorkspace, UnavailableProvider, uniqueName, type ModeRequest } from '../../../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';

describeWithBwrap(`LocalShellExecutor with a SandboxConfinement on bwrap${NEEDS_BWRAP}`, () => {
  const made: LocalShellExecutor[] = [];
  const confinements: SandboxConfinement[] = [];
  const confinementOf = new Map<LocalShellExecutor, SandboxConfinement>();
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    ws = tempWorkspace();
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((executor) => executor.dispose()));
    // The container disposes the confinement in a real composition; here the test owns it (its private /tmp dirs).
    for (const confinement of confinements.splice(0)) confinement.dispose();
    ws.remove();
  });

  function make(
    sandbox: Partial<SandboxConfig> = {},
    config: Partial<ExecutorConfig> = {},
    provider: SandboxProvider = new BwrapSandboxProvider(sandbox),
  ): LocalShellExecutor {
    const confinement = new SandboxConfinement(new LocalSandboxPolicy(sandbox), provider, sandbox);
    confinements.push(confinement);
    const executor = new LocalShellExecutor({ cwd: ws.dir, graceMs: 200, ...config }, confinement);
    made.push(executor);
    confinementOf.set(executor, confinement);
    return executor;
  }
  /** Plans like the call planner (the mode asked, else the policy's; the workspace) and runs it. */
  const run = (executor: LocalShellExecutor, request: ModeRequest) => runConfined(executor, confinementOf.get(executor)!, ws.dir, request);
  const plan = (executor: LocalShellExecutor, request: ModeRequest) => planConfined(executor, confinementOf.get(executor)!, ws.dir, request);

  it('advertises its default mode (read-only unless configured)', () => {
    make();
    make({ mode: 'workspace-write' });
    expect(confinements.map((confinement) => confinement.defaultMode)).toEqual(['read-only', 'workspace-write']);
  });

  describe('read-only', () => {
    it('runs commands and lets them write /dev/null', async () => {
      const result = await run(make(), { command: 'echo hi; echo gone > /dev/null && echo null-ok' });
      expect(result).toMatchObject({ stdout: 'hi\nnull-ok\n', exitCode: 0, sandboxMode: 'read-only', sandboxDenied: false });
    });

    it('denies a write in the workspace and reports it as a sandbox denial', async () => {
      const result = await run(make(), { command: `touch ${ws.dir}/x` });
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(result).toMatchObject({ sandboxMode: 'read-only', sandboxDenied: true });
      expect(existsSync(path.join(ws.dir, 'x'))).toBe(false);
    });

    it('denies writes to /tmp and to the rest of /dev', async () => {
      const name = uniqueName('/tmp/dsh-ro');
      const result = await run(make(), { command: `touch ${name} || touch /dev/${path.basename(name)}` });
      expect(result.sandboxDenied).toBe(true);
      expect(existsSync(name)).toBe(false);
    });

    it('does not call a failure without the denial signature a denial', async () => {
      const result = await run(make(), { command: 'echo nope >&2; exit 3' });
      expect(result).toMatchObject({ exitCode: 3, sandboxDenied: false, sandboxMode: 'read-only' });
    });
  });

  describe('workspace-write', () => {
    it('allows writes under the workspace root and in its private /tmp (not the host /tmp)', async () => {
      const inTmp = uniqueName('/tmp/dsh-ww');
      try {
        const executor = make({ mode: 'workspace-write' });
        const result = await run(executor, {
          command: `mkdir -p sub && echo a > sub/file && touch ${inTmp} && cat sub/file`,
        });
        expect(result).toMatchObject({ stdout: 'a\n', exitCode: 0, sandboxMode: 'workspace-write', sandboxDenied: false });
        expect(existsSync(path.join(ws.dir, 'sub', 'file'))).toBe(true);
        expect(existsSync(inTmp)).toBe(false);
        expect(await run(executor, { command: `ls ${inTmp}` })).toMatchObject({ stdout: `${inTmp}\n`, exitCode: 0 });
      } finally {
        rmSync(inTmp, { force: true });
      }
    });

    it('denies writes outside the workspace (system dirs, $HOME)', async () => {
      const outside = `/usr/local/${uniqueName('dsh-test')}`;
      const inHome = path.join(os.homedir(), uniqueName('dsh-test'));
      try {
        const executor = make({ mode: 'workspace-write' });
        const system = await run(executor, { command: `touch ${outside}` });
        const home = await run(executor, { command: `touch ${inHome}` });
        expect(system).toMatchObject({ sandboxDenied: true, sandboxMode: 'workspace-write' });
        expect(home).toMatchObject({ sandboxDenied: true, sandboxMode: 'workspace-write' });
        expect(existsSync(outside)).toBe(false);
        expect(existsSync(inHome)).toBe(false);
      } finally {
        rmSync(outside, { force: true });
        rmSync(inHome, { force: true });
      }
    });

    it('confines to the spec root even when the executor default is narrower', async () => {
      const result = await run(make(), { command: 'touch here && echo ok', sandboxMode: 'workspace-write' });
      expect(result).toMatchObject({ stdout: 'ok\n', sandboxMode: 'workspace-write' });
    });
  });

  it('starts in the workdir, and fails loudly (not in $HOME) for a workdir hidden inside the sandbox', async () => {
    mkdirSync(path.join(ws.dir, 'sub'));
    expect(await run(make(), { command: 'pwd', workdir: path.join(ws.dir, 'sub') })).toMatchObject({
      stdout: `${path.join(ws.dir, 'sub')}\n`,
      exitCode: 0,
    });
    const hidden = tempWorkspace('dsh-hidden-');
    try {
      const result = await run(make(), { command: 'pwd', workdir: hidden.dir });
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`Can't chdir to ${hidden.dir}`);
    } finally {
      hidden.remove();
    }
  });

  it('runs danger-full-access unconfined, without asking the provider for a wrap', async () => {
    const provider = new UnavailableProvider();
    const outside = path.join(ws.dir, '..', uniqueName('dsh-full'));
    try {
      const executor = make({}, {}, provider);
      const result = await run(executor, { command: `touch ${outside} && echo ok`, sandboxMode: 'danger-full-access' });
      expect(result).toMatchObject({ stdout: 'ok\n', sandboxMode: 'danger-full-access', sandboxDenied: false });
      expect(existsSync(outside)).toBe(true);
      expect(provider.wraps).toEqual([]);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('turns the network off with network: false', async () => {
    const result = await run(make({ network: false }), { command: 'cat /proc/net/dev | tail -n +3 | cut -d: -f1' });
    expect(result.stdout.trim()).toBe('lo');
  });

  describe('fails closed without a usable backend', () => {
    it('rejects run with SANDBOX_UNAVAILABLE naming the mode and the fix; nothing spawns', async () => {
      const marker = path.join(ws.dir, 'ran');
      const executor = make({}, {}, new UnavailableProvider());
      const error = await run(executor, { command: `touch ${marker}` }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: SANDBOX_UNAVAILABLE,
        message:
          'sandbox unavailable for read-only mode: bwrap was not found; install the bubblewrap package, ' +
          'or run with --sandbox danger-full-access',
      });
      expect(existsSync(marker)).toBe(false);
    });

    it('rejects start too, and names the requested mode', async () => {
      const executor = make({}, {}, new UnavailableProvider('no user namespaces'));
      await expect((async () => executor.start(plan(executor, { command: 'true', sandboxMode: 'workspace-write' })))()).rejects.toMatchObject({
        code: SANDBOX_UNAVAILABLE,
        message: expect.stringMatching(/^sandbox unavailable for workspace-write mode: no user namespaces/),
      });
    });

    it('reports a missing bwrap binary through the real provider', async () => {
      const executor = make({ bwrapPath: '/nonexistent/bwrap' });
      await expect(run(executor, { command: 'true' })).rejects.toMatchObject({
        code: SANDBOX_UNAVAILABLE,
        message: expect.stringContaining('install the bubblewrap package'),
      });
    });
  });

  it('rejects an unknown mode and a relative workspace root instead of guessing', () => {
    const confinement = confinementOf.get(make())!;
    expect(() => confinement.forSession(undefined, { mode: 'none' as never })).toThrow(/^invalid sandboxMode/);
    expect(() => confinement.forSession(undefined, { workspaceRoot: 'rel' })).toThrow(/^invalid workspaceRoot/);
  });

  it('leaves no process behind after a sandboxed timeout', async () => {
    const sleep = uniqueSleep();
    const result = await run(make(), { command: `sleep ${sleep} & sleep ${sleep} >/dev/null 2>&1 & sleep ${sleep}`, timeoutMs: 300 });
    expect(result).toMatchObject({ timedOut: true, sandboxMode: 'read-only' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills a sandboxed background process group, and dispose stops what is left', async () => {
    const executor = make({ mode: 'workspace-write' });
    const first = uniqueSleep();
    const second = uniqueSleep();
    const killed = await executor.start(plan(executor, { command: `sleep ${first} & sleep ${first}` }));
    const left = await executor.start(plan(executor, { command: `sleep ${second}` }));
    expect(await pollUntil(() => processesWith(first).length >= 2 && processesWith(second).length >= 1)).toBe(true);
    expect(await killed.kill()).toBe(true);
    expect(await survivors(first)).toEqual([]);
    await executor.dispose();
    await left.done;
    expect(await survivors(second)).toEqual([]);
  });

  it('does not flag EROFS text printed by a command that succeeded', async () => {
    writeFileSync(path.join(ws.dir, 'note'), 'Read-only file system\n');
    const result = await run(make(), { command: 'cat note >&2' });
    expect(result).toMatchObject({ exitCode: 0, sandboxDenied: false });
  });
});
