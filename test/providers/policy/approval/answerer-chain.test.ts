// Which answerers a request is put to, and in what order (docs/security/approvals.md, "The answerer chain").
import { answererChain } from '../../../../src/providers/policy/approval/answerer-chain.js';
import { LocalApprovalService } from '../../../../src/providers/policy/approval/local-approval-service.js';
import { APPROVAL_KINDS, type ApprovalAnswerer, type ApprovalDecision } from '../../../../src/providers/policy/approval/approval-service.js';

function answerer(name: string, decision: ApprovalDecision | undefined, asked: string[]): ApprovalAnswerer {
  return { name, kinds: APPROVAL_KINDS, answer: async () => (asked.push(name), decision) };
}

const ask = { kind: 'command', tool: 'bash', command: 'touch x', callId: 'c1' } as const;

describe('answererChain', () => {
  const named = (...names: string[]) => names.map((name) => answerer(name, undefined, []));
  const names = (chain: readonly ApprovalAnswerer[]) => chain.map((a) => a.name);

  it('unset: binding order, the webhook moved last', () => {
    expect(names(answererChain(named('webhook', 'custom', 'mcp-elicitation'), undefined))).toEqual(['custom', 'mcp-elicitation', 'webhook']);
  });

  it('set: exactly the named ones in that order; unnamed never, unbound names skipped', () => {
    const bound = named('mcp-elicitation', 'custom', 'webhook');
    expect(names(answererChain(bound, ['webhook', 'mcp-elicitation']))).toEqual(['webhook', 'mcp-elicitation']);
    expect(names(answererChain(bound, ['console', 'custom']))).toEqual(['custom']);
    expect(answererChain(bound, [])).toEqual([]);
  });
});

describe('LocalApprovalService with approval.answerers', () => {
  it('asks the elicitation before the webhook by default: a client that passes hands it on', async () => {
    const asked: string[] = [];
    const service = new LocalApprovalService([answerer('webhook', 'rejected', asked), answerer('mcp-elicitation', undefined, asked)]);
    await expect(service.requestOutcome(ask)).resolves.toEqual({ decision: 'rejected', answeredBy: 'webhook' });
    expect(asked).toEqual(['mcp-elicitation', 'webhook']);
  });

  it('[webhook] never asks the client, even one that would approve', async () => {
    const asked: string[] = [];
    const service = new LocalApprovalService([answerer('mcp-elicitation', 'allowed-once', asked), answerer('webhook', 'rejected', asked)], { answerers: ['webhook'] });
    await expect(service.requestOutcome(ask)).resolves.toEqual({ decision: 'rejected', answeredBy: 'webhook' });
    expect(asked).toEqual(['webhook']);
  });

  it('[] asks nobody: the approval is refused as having no answerer', async () => {
    const asked: string[] = [];
    const service = new LocalApprovalService([answerer('mcp-elicitation', 'allowed-once', asked)], { answerers: [] });
    await expect(service.requestOutcome(ask)).resolves.toEqual({ decision: 'unavailable' });
    expect(asked).toEqual([]);
  });

  it('refuses a name listed twice, or a list that is not of names', () => {
    expect(() => new LocalApprovalService([], { answerers: ['webhook', 'webhook'] })).toThrow('invalid approval config: answerers names "webhook" twice');
    expect(() => new LocalApprovalService([], { answerers: 'webhook' as never })).toThrow('invalid approval config: answerers must be a list of answerer names');
  });
});
