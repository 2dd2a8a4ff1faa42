// A person's decision (the operator console's): the answerer names who decided, the outcome's
// `answeredBy` is `<answerer>:<person>`, and a rejection tells the model who refused. Anything
// that is not a named decision of a real decision fails closed.
import { refusalMessage } from '../../../../src/providers/policy/approval/approval-refusals.js';
import { LocalApprovalService } from '../../../../src/providers/policy/approval/local-approval-service.js';
import { APPROVAL_KINDS, type ApprovalAnswerer, type ApprovalAsk } from '../../../../src/providers/policy/approval/approval-service.js';
import { fakeSession } from '../../../support/fake-session.js';

const ask: ApprovalAsk = { session: fakeSession('s1'), kind: 'command', tool: 'bash', command: 'rm -rf build', rule: 'rm', callId: 'c1' };
const answering = (answer: unknown): ApprovalAnswerer => ({ name: 'console', kinds: APPROVAL_KINDS, answer: async () => answer as never });

describe('named decisions', () => {
  it('records the person beside the answerer, for an approval and a rejection', async () => {
    const allowed = await new LocalApprovalService([answering({ decision: 'allowed-once', by: 'alice' })]).requestOutcome(ask);
    expect(allowed).toEqual({ decision: 'allowed-once', answeredBy: 'console:alice' });
    const service = new LocalApprovalService([answering({ decision: 'rejected', by: 'alice' })]);
    const rejected = await service.requestOutcome(ask);
    expect(rejected).toEqual({ decision: 'rejected', answeredBy: 'console:alice' });
    expect(service.audit().at(-1)).toMatchObject({ decision: 'rejected', answeredBy: 'console:alice' });
    expect(refusalMessage('command', rejected)).toBe('command rejected by operator "alice" (console)');
    expect(refusalMessage('escalation', rejected)).toBe('escalation rejected by operator "alice" (console)');
  });

  it('keeps the existing texts of the user, a policy and a plain answerer', () => {
    expect(refusalMessage('escalation', { decision: 'rejected', answeredBy: 'mcp-elicitation' })).toBe('escalation rejected by the user');
    expect(refusalMessage('escalation', { decision: 'rejected', answeredBy: 'policy:never' })).toBe('escalation rejected by policy never');
    expect(refusalMessage('command', { decision: 'rejected' })).toBe('command rejected by the user');
  });

  it.each([
    ['an empty name', { decision: 'allowed-once', by: '' }],
    ['a name that is no string', { decision: 'allowed-once', by: 7 }],
    ['no decision', { by: 'alice' }],
    ['a made-up decision', { decision: 'yes', by: 'alice' }],
    ['unavailable', { decision: 'unavailable', by: 'alice' }],
  ])('fails closed on %s', async (_label, answer) => {
    expect((await new LocalApprovalService([answering(answer)]).requestOutcome(ask)).decision).toBe('failed');
  });
});
