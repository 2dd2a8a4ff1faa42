// What a client's declared elicitation and its input_required answer mean for an approval.
import { decisionOfAnswer, formSupportOf } from '../../../src/mcp/approvals/approval-answers.js';
import { approvalFacts, describeApproval } from '../../../src/providers/policy/approval/approval-text.js';
import { refusalMessage } from '../../../src/providers/policy/approval/approval-refusals.js';

const fields = { kind: 'escalation' as const, tool: 'bash', command: 'make install', workdir: '/repo', sandboxMode: 'read-only' as const, requestedMode: 'workspace-write' as const, justification: 'Installs.', callId: 'c1' };
const request = { ...fields, reason: describeApproval(fields) };
const shown = Object.fromEntries(approvalFacts(request).map((fact) => [fact.name, fact.value]));

test.each([
  [undefined, 'none'],
  [{}, 'none'],
  [{ elicitation: {} }, 'form'],
  [{ elicitation: { form: {} } }, 'form'],
  [{ elicitation: { form: {}, url: {} } }, 'form'],
  [{ elicitation: { url: {} } }, 'url-only'],
])('capabilities %j: %s', (capabilities, expected) => {
  expect(formSupportOf(capabilities)).toBe(expected);
});

test.each([
  [{ action: 'accept' }, 'allowed-once'],
  [{ action: 'accept', content: {} }, 'allowed-once'],
  [{ action: 'accept', content: shown }, 'allowed-once'],
  [{ action: 'accept', content: { ...shown, command: '"rm -rf /"' } }, 'failed'],
  [{ action: 'accept', content: { approved: 'yes' } }, 'failed'],
  [{ action: 'accept', content: ['mode'] }, 'failed'],
  [{ action: 'accept', content: null }, 'failed'],
  [{ action: 'decline' }, 'rejected'],
  [{ action: 'cancel' }, 'cancelled'],
  [{ action: 'ACCEPT' }, 'failed'],
  [{ method: 'elicitation/create', result: { action: 'accept' } }, 'failed'],
  ['accept', 'failed'],
  [undefined, 'failed'],
  [null, 'failed'],
])('answer %j: %s', (answer, expected) => {
  expect(decisionOfAnswer(answer, request)).toBe(expected);
});

test('needs-form has its own text for both kinds', () => {
  expect(refusalMessage('escalation', { decision: 'needs-form' })).toBe('escalation rejected: approval needs form input; this client offers only URL-mode elicitation');
  expect(refusalMessage('command', { decision: 'needs-form' })).toBe('command not approved: approval needs form input; this client offers only URL-mode elicitation');
});
