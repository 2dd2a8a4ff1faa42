// An answerer written for command rules ("deny rm, allow the rest") decides
// command rules only: a sandbox escalation is refused without asking it, and
// the command never runs.
import 'reflect-metadata';
import { createHost, sandboxedEnvironment, type ApprovalRequest } from 'dsh-tools';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { denyRm } from '../src/deny-rm.answerer.js';
import { BWRAP } from './engines.js';

(BWRAP ? it.skip : it)(`a command-rule answerer cannot approve an escalation, and still decides rules${BWRAP}`, async () => {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'consumer-kinds-')));
  const outside = path.join(realpathSync(mkdtempSync(path.join(tmpdir(), 'consumer-outside-'))), 'written');
  const asked: ApprovalRequest[] = [];
  const host = await createHost(
    ...sandboxedEnvironment({
      workspace,
      sandbox: { mode: 'read-only' },
      approval: { rules: [{ match: /^rm\b/, action: 'ask' }, { match: /^touch\b/, action: 'ask' }] },
      answerers: [denyRm(asked)],
    }),
  );
  try {
    const session = host.openSession({ cwd: workspace });
    const escalation = await session.call('bash', {
      command: `echo escalated > ${outside}`,
      description: 'Write outside the sandbox',
      sandbox_permissions: 'danger-full-access',
      justification: 'Needed.',
    });
    expect(escalation.content[0]?.text).toBe('Error: escalation unavailable: no approval answerer takes escalation requests');
    expect(existsSync(outside)).toBe(false);
    expect(asked).toEqual([]);
    const rm = await session.call('bash', { command: 'rm -f anything', description: 'Remove' });
    expect(rm.content[0]?.text).toBe('Error: command rejected by the user');
    expect(asked.map((request) => request.kind)).toEqual(['command']);
  } finally {
    await host.dispose();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(path.dirname(outside), { recursive: true, force: true });
  }
});
