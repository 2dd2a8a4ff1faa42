// Attack: hand an executor something that looks planned so its checks are
// skipped, or borrow another session's decisions. A spec is trusted only when
// ExecSpec.check made it for this executor's limits; a plan only when a
// planner made it; a session's scoped state is its own.
import { ExecSpec, ExecutionPlan, LocalSandboxPolicy, LocalShellExecutor } from '../../src/index.js';
import { fakeSession } from '../support/fake-session.js';

describe('plan-forged-spec', () => {
  const executor = new LocalShellExecutor({ timeoutMs: 1000, maxTimeoutMs: 2000, prestart: false });
  afterAll(() => executor.dispose());

  it('a look-alike built from the prototype is checked like a hand-made spec (no private field, no trust)', async () => {
    const forged = Object.assign(Object.create(ExecSpec.prototype) as ExecSpec, { command: ' ', workdir: '/', timeoutMs: 1000 });
    expect(forged instanceof ExecSpec).toBe(true);
    await expect(executor.run(forged)).rejects.toThrow('invalid command: expected a non-empty string');
    const long = Object.assign(Object.create(ExecSpec.prototype) as ExecSpec, { command: 'true', workdir: '/', timeoutMs: 999_999 });
    expect((await executor.run(long)).timeoutMs).toBe(2000);
  });

  it('a spec checked against wider limits is capped by this executor again', async () => {
    const wider = new LocalShellExecutor({ maxTimeoutMs: 600_000 });
    try {
      const spec = wider.checkRequest({ command: 'true', workdir: '/', timeoutMs: 500_000 });
      expect((await executor.run(spec)).timeoutMs).toBe(2000);
    } finally {
      await wider.dispose();
    }
  });

  it('a checked spec cannot be changed afterwards (frozen), and a copy is checked again', async () => {
    const spec = executor.checkRequest({ command: 'true', workdir: '/' });
    expect(() => Object.assign(spec, { command: '' })).toThrow(TypeError);
    await expect(executor.run({ ...spec, command: '\0' } as ExecSpec)).rejects.toThrow('invalid command: contains a NUL character');
  });

  it('only a planner-made plan passes for one', () => {
    const spec = executor.checkRequest({ command: 'true', workdir: '/' });
    expect(ExecutionPlan.isPlan(ExecutionPlan.decided(spec, undefined))).toBe(true);
    expect(ExecutionPlan.isPlan({ exec: spec, sandbox: { mode: 'danger-full-access' } })).toBe(false);
    expect(ExecutionPlan.isPlan(Object.create(ExecutionPlan.prototype))).toBe(false);
  });

  it("one session's mode override lives in its own scope: another session with the same id is not widened", async () => {
    const policy = new LocalSandboxPolicy({ mode: 'read-only' });
    const first = fakeSession('same-id', { cwd: '/tmp' });
    const second = fakeSession('same-id', { cwd: '/tmp' });
    policy.setMode(first, 'danger-full-access');
    expect(policy.decide({ session: first }).mode).toBe('danger-full-access');
    expect(policy.decide({ session: second }).mode).toBe('read-only');
    await first.dispose();
    expect(policy.decide({ session: first }).mode).toBe('read-only');
  });
});
