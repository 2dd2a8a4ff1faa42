// Per-session state of a real sandboxed host lives in the session's scope and goes, newest first, when it closes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, SandboxPolicy, sandboxedEnvironment } from '../../../../src/index.js';
import type { DisposableScope } from '../../../../src/core/session-scope.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';

describeWithBwrap(`a sandboxed session's scope${NEEDS_BWRAP}`, () => {
  it('holds the sandbox state, the mode override and the tasks, and empties when the session closes', async () => {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-scope-')));
    const host = await createHost(...sandboxedEnvironment({ workspace, sandbox: { mode: 'workspace-write' } }));
    try {
      const session = host.openSession({ cwd: workspace });
      host.get(SandboxPolicy).setMode(session, 'read-only');
      const ran = await session.call('bash', { command: 'echo hi', description: 'Say hi' });
      expect(ran.content[0]!.text).toBe('hi');
      const started = await session.call('bash', { command: 'sleep 30', description: 'Wait', run_in_background: true });
      expect(started.content[0]!.text).toMatch(/^started background task /);
      expect(host.get(SandboxPolicy).decide({ session }).mode).toBe('read-only');
      const scope = session.scope as DisposableScope;
      expect(scope.pending).toEqual(
        expect.arrayContaining(['the sandbox state (pinned workspace, private /tmp)', 'the background tasks']),
      );
      const privateTmps = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('dsh-sandbox-tmp-'));
      const before = privateTmps();
      expect(before.length).toBeGreaterThan(0);
      await session.dispose();
      expect(scope.pending).toEqual([]);
      // This session's private /tmp is gone with it.
      expect(privateTmps().filter((name) => before.includes(name)).length).toBeLessThan(before.length);
    } finally {
      await host.dispose();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
