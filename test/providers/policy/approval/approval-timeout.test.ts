// An approval request nobody answers must not hold the call forever: after
// approval.timeoutMs it is rejected, and the answerer is told to withdraw.
import { createHost, replace } from '../../../../src/index.js';
import { resolveApprovalConfig } from '../../../../src/providers/policy/approval/approval-config.js';
import { APPROVAL_KINDS, ApprovalService, type ApprovalAnswerer, type ApprovalAsk, type ApprovalRequest } from '../../../../src/providers/policy/approval/approval-service.js';
import { LocalApprovalService } from '../../../../src/providers/policy/approval/local-approval-service.js';
import { ScriptedApprovalAnswerer, ScriptedExecutor, testingEnvironment } from '../../../../src/testing.js';
import { fakeSession } from '../../../support/fake-session.js';

const ask = (extra: Partial<ApprovalAsk> = {}): ApprovalAsk => ({
  session: fakeSession('s1'),
  kind: 'escalation',
  tool: 'bash',
  command: 'make',
  sandboxMode: 'read-only',
  requestedMode: 'workspace-write',
  justification: 'builds need to write',
  callId: 'call-1',
  ...extra,
});

/** An answerer that never answers; it records the signal it was given and when that fired. */
class SilentAnswerer implements ApprovalAnswerer {
  readonly name = 'silent';
  readonly kinds = APPROVAL_KINDS;
  signal?: AbortSignal;
  answer(request: ApprovalRequest): Promise<undefined> {
    this.signal = request.signal;
    return new Promise(() => undefined);
  }
}

test('the default limit is 300000 ms; bad values are refused at composition', () => {
  expect(resolveApprovalConfig().timeoutMs).toBe(300_000);
  expect(new LocalApprovalService().timeoutMs).toBe(300_000);
  for (const bad of [0, -1, 1.5, '5', 2 ** 31]) {
    expect(() => resolveApprovalConfig({ timeoutMs: bad as never })).toThrow(/^invalid approval config: timeoutMs must be an integer from 1 to 2147483647/);
  }
});

test('no answer within timeoutMs is timed-out: the answerer\'s signal fires and the audit records it', async () => {
  const silent = new SilentAnswerer();
  const service = new LocalApprovalService([silent], { timeoutMs: 50 });
  expect(await service.request(ask())).toBe('timed-out');
  expect(silent.signal?.aborted).toBe(true);
  expect(service.audit()).toEqual([expect.objectContaining({ decision: 'timed-out' })]);
});

test('the caller\'s own abort is still cancelled, and a prompt answer is unaffected by the limit', async () => {
  const controller = new AbortController();
  const silent = new SilentAnswerer();
  const pending = new LocalApprovalService([silent], { timeoutMs: 60_000 }).request(ask({ signal: controller.signal }));
  controller.abort();
  expect(await pending).toBe('cancelled');

  const quick = new LocalApprovalService([new ScriptedApprovalAnswerer(['allowed-once'])], { timeoutMs: 1 });
  expect(await quick.request(ask())).toBe('allowed-once');
});

test('bash answers a timed-out escalation with the exact error and runs nothing', async () => {
  const executor = new ScriptedExecutor({}, {}, 'read-only');
  const service = new LocalApprovalService([new SilentAnswerer()], { timeoutMs: 50 });
  const host = await createHost(...testingEnvironment({ executor }), replace(ApprovalService, service));
  try {
    const result = await host.openSession({ id: 'esc' }).call('bash', {
      command: 'touch a',
      description: 'Create a file',
      sandbox_permissions: 'workspace-write',
      justification: 'Writes a file.',
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Error: escalation rejected: no answer within 0.05s' }], isError: true });
    expect(executor.runs).toEqual([]);
  } finally {
    await host.dispose();
  }
});
