// A command-rule answerer ("deny rm, allow the rest") must not be able to
// widen the sandbox: an answerer is asked only the kinds it declares, and one
// that declares none is asked only about command rules (docs/security/approvals.md).
import { existsSync } from 'node:fs';
import { createHost, sandboxedEnvironment, type ApprovalAnswerer, type ApprovalRequest, type DshHost } from '../../src/index.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { markerWorkspace, resultText } from '../support/approval-kit.js';

/** Denies `rm`, allows everything else it is asked; records what it was asked. */
function denyRm(kinds?: ApprovalRequest['kind'][]): ApprovalAnswerer & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    name: 'deny-rm',
    ...(kinds === undefined ? {} : { kinds }),
    asked,
    answer: async (request) => {
      asked.push(request);
      return /^rm\b/.test(request.command) ? 'rejected' : 'allowed-once';
    },
  };
}

describeWithBwrap(`approval kinds${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof markerWorkspace>;
  const hosts: DshHost[] = [];
  beforeAll(() => void (ws = markerWorkspace('dsh-approval-kinds-')));
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.dispose()));
    ws.remove();
  });

  async function compose(answerer: ApprovalAnswerer): Promise<DshHost> {
    const host = await createHost(
      ...sandboxedEnvironment({
        workspace: ws.dir,
        sandbox: { mode: 'read-only' },
        logLevel: 'error',
        approval: { rules: [{ match: /^rm\b/, action: 'ask' }, { match: /^touch\b/, action: 'ask' }] },
        answerers: [answerer],
      }),
    );
    hosts.push(host);
    return host;
  }

  const escalate = (command: string) => ({
    command,
    description: 'Write outside the read-only sandbox',
    sandbox_permissions: 'danger-full-access',
    justification: 'Needed.',
  });

  it.each([
    ['declares only command rules', ['command'] as ApprovalRequest['kind'][]],
    ['declares no kinds', undefined],
  ])('an answerer that %s cannot approve an escalation, and nothing runs', async (_what, kinds) => {
    const answerer = denyRm(kinds);
    const host = await compose(answerer);
    const result = await host.openSession({ cwd: ws.dir }).call('bash', escalate(`echo escalated > ${ws.marker}`));
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe('Error: escalation unavailable: no approval answerer takes escalation requests');
    expect(answerer.asked).toEqual([]);
    expect(existsSync(ws.marker)).toBe(false);
  });

  it('the same answerer still decides command rules: rm refused, touch allowed', async () => {
    const answerer = denyRm(['command']);
    const host = await compose(answerer);
    const session = host.openSession({ cwd: ws.dir });
    expect(resultText(await session.call('bash', { command: `rm -f ${ws.marker}`, description: 'Remove' }))).toBe('Error: command rejected by the user');
    expect((await session.call('bash', { command: 'touch /tmp/dsh-kinds-probe-not-written', description: 'Touch' })).isError).toBeFalsy();
    expect(answerer.asked.map((request) => request.kind)).toEqual(['command', 'command']);
  });

  it('an answerer that declares escalations is asked them (and its allow widens the sandbox)', async () => {
    const answerer = denyRm(['command', 'escalation']);
    const host = await compose(answerer);
    const result = await host.openSession({ cwd: ws.dir }).call('bash', escalate(`echo escalated > ${ws.marker}`));
    expect(result.isError).toBeFalsy();
    expect(answerer.asked.map((request) => request.kind)).toEqual(['escalation']);
    expect(existsSync(ws.marker)).toBe(true);
  });
});
