import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { LocalSandboxPolicy } from '../../../../src/providers/backends/bwrap/local-sandbox-policy.js';
import { fakeSession } from '../../../support/fake-session.js';
import { tempWorkspace } from '../../../support/sandbox-test-kit.js';

describe('LocalSandboxPolicy', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    ws = tempWorkspace('dsh-policy-');
  });
  afterEach(() => ws.remove());

  it('mode precedence: one-shot > session override > deployment default (read-only)', () => {
    const policy = new LocalSandboxPolicy();
    const session = fakeSession('s1', { cwd: ws.dir });
    expect(policy.decide({ session }).mode).toBe('read-only');
    policy.setMode(session, 'workspace-write');
    expect(policy.decide({ session }).mode).toBe('workspace-write');
    expect(policy.decide({ session, mode: 'danger-full-access' }).mode).toBe('danger-full-access');
    expect(policy.decide({ session: fakeSession('other') }).mode).toBe('read-only');
    expect(new LocalSandboxPolicy({ mode: 'workspace-write' }).decide({}).mode).toBe('workspace-write');
  });

  it('resolves the session cwd to its real path, symlinks before ..', () => {
    const real = path.join(ws.dir, 'real', 'deep');
    mkdirSync(real, { recursive: true });
    symlinkSync(real, path.join(ws.dir, 'link'));
    const policy = new LocalSandboxPolicy();
    expect(policy.decide({ session: fakeSession('a', { cwd: path.join(ws.dir, 'link') }) }).workspaceRoot).toBe(real);
    // Lexical normalisation would give ws.dir; the kernel walks link first, then ..
    const dotdot = `${ws.dir}/link/..`;
    expect(policy.decide({ session: fakeSession('b', { cwd: dotdot }) }).workspaceRoot).toBe(path.join(ws.dir, 'real'));
  });

  it('without a session cwd: the configured fallback root (real path), else the process cwd', () => {
    symlinkSync(ws.dir, `${ws.dir}-link`);
    try {
      const policy = new LocalSandboxPolicy({ fallbackRoot: `${ws.dir}-link` });
      expect(policy.decide({}).workspaceRoot).toBe(ws.dir);
      expect(policy.decide({ session: fakeSession('no-cwd') }).workspaceRoot).toBe(ws.dir);
      expect(new LocalSandboxPolicy().decide({}).workspaceRoot).toBe(realpathSync(process.cwd()));
    } finally {
      rmSync(`${ws.dir}-link`, { force: true });
    }
  });

  it('keeps a missing cwd as is rather than widening to another root', () => {
    const missing = path.join(ws.dir, 'gone');
    expect(new LocalSandboxPolicy().decide({ session: fakeSession('m', { cwd: missing }) }).workspaceRoot).toBe(missing);
  });

  it('drops a session override when the session is disposed, and ignores one for a disposed session', async () => {
    const policy = new LocalSandboxPolicy();
    const session = fakeSession('d1', { cwd: ws.dir });
    policy.setMode(session, 'workspace-write');
    policy.setMode(session, 'danger-full-access');
    expect(policy.overrideOf(session)).toBe('danger-full-access');
    await session.dispose();
    expect(policy.overrideOf(session)).toBeUndefined();
    policy.setMode(session, 'workspace-write');
    expect(policy.overrideOf(session)).toBeUndefined();
  });

  it('rejects unknown modes', () => {
    const policy = new LocalSandboxPolicy();
    expect(() => policy.setMode(fakeSession('x'), 'full' as never)).toThrow(
      'invalid sandbox mode: expected one of read-only, workspace-write, danger-full-access, got "full"',
    );
    expect(() => policy.decide({ mode: 'full' as never })).toThrow(/^invalid sandbox mode/);
  });
});
