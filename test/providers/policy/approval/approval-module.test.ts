// The approval plugin in a host: answerers loaded later are still consulted.
import { createHost, ApprovalService } from '../../../../src/index.js';
import { approvalAnswerersModule, approvalModule } from '../../../../src/providers/policy/approval/approval.module.js';
import { ScriptedApprovalAnswerer } from '../../../../src/testing/scripted-approval-answerer.js';

const request = { kind: 'command', tool: 'bash', command: 'make', callId: 'c' } as const;

describe('approvalModule', () => {
  it('binds one service that sees answerer plugins loaded after it was built, in load order', async () => {
    const host = await createHost(approvalModule());
    try {
      const service = host.get(ApprovalService);
      expect(await service.request(request)).toBe('unavailable');
      const first = new ScriptedApprovalAnswerer([undefined], 'first');
      const second = new ScriptedApprovalAnswerer(['allowed-once'], 'second');
      await host.load(approvalAnswerersModule([first]), approvalAnswerersModule([second], 'more'));
      expect(host.get(ApprovalService)).toBe(service);
      expect(await service.request(request)).toBe('allowed-once');
      expect(first.requests).toHaveLength(1);
      expect(service.audit().map((record) => record.decision)).toEqual(['unavailable', 'allowed-once']);
    } finally {
      await host.dispose();
    }
  });

  it('fails the load for a bad config', async () => {
    await expect(createHost(approvalModule({ policy: 'maybe' as never }))).rejects.toThrow(/invalid approval config: policy/);
  });
});
