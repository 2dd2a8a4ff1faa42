// One sandboxed one-shot `echo hi`, counted the way the review did: how often
// the sandbox policy is asked, how many realpath(3) calls and how many
// redactor passes (whole-text redactions and streams) one call costs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, decorate, Redactor, SandboxPolicy, sandboxedEnvironment } from '../../../../src/index.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';

interface Counts {
  policy: number;
  realpath: number;
  redactor: number;
}

/** Counts every call into `target` (all methods) with `count`. */
function counting<T extends object>(inner: T, count: () => void): T {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        count();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Wraps fs.realpathSync and fs.realpathSync.native (what the providers call) with `count`; returns the undo. */
function countRealpath(count: () => void): () => void {
  const plain = fs.realpathSync;
  const native = plain.native;
  const wrappedNative = ((p: fs.PathLike) => {
    count();
    return native(p);
  }) as typeof native;
  const wrapped = Object.assign(
    ((p: fs.PathLike) => {
      count();
      return plain(p);
    }) as typeof plain,
    { native: wrappedNative },
  );
  fs.realpathSync = wrapped;
  return () => {
    fs.realpathSync = plain;
  };
}

describeWithBwrap(`one sandboxed one-shot call${NEEDS_BWRAP}`, () => {
  it('asks the policy once and resolves the workspace once', async () => {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-counts-')));
    const counts: Counts = { policy: 0, realpath: 0, redactor: 0 };
    const host = await createHost(
      ...sandboxedEnvironment({ workspace, executor: { prestart: false }, sandbox: { mode: 'workspace-write' } }),
      decorate(SandboxPolicy, (inner) => counting(inner, () => counts.policy++)),
      decorate(Redactor, (inner) => counting(inner, () => counts.redactor++)),
    );
    const session = host.openSession({ cwd: workspace });
    // A first call warms the per-session state (the workspace pin, the private /tmp).
    await session.call('bash', { command: 'true', description: 'Warm up' });
    const restore = countRealpath(() => counts.realpath++);
    counts.policy = 0;
    counts.redactor = 0;
    try {
      const result = await session.call('bash', { command: 'echo hi', description: 'Say hi' });
      expect(result.content[0]!.text).toBe('hi');
    } finally {
      restore();
      await host.dispose();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
    // Before the planner: policy 3, realpath 8, redactor 8. The redactor now: one stream per output stream, then the
    // host's last line of defence over the text and each non-empty string of the value (stdout, kind, shell, mode);
    // the command is redacted only when an observer reads it (no audit sink, no includeCommand here: 7, was 8).
    // realpath: the workspace once, and each default protected path (.git, .envrc, .vscode) once, since
    // they may appear or go between calls (docs/security.md, "Protected paths").
    expect(counts).toEqual({ policy: 1, realpath: 4, redactor: 7 });
  });
});
