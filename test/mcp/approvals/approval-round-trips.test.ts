// ApprovalRoundTrips with a fake request context and a fake call: the call's
// approval becomes an input_required answer, the retry's answer becomes the
// decision, and every other retry is refused.
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { ApprovalRoundTrips, STALE_APPROVAL_ANSWER, type ModernCallResult } from '../../../src/mcp/approvals/approval-round-trips.js';
import type { CallRequest } from '../../../src/mcp/calls/call-runner.js';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/providers/policy/approval/approval-service.js';
import { describeApproval } from '../../../src/providers/policy/approval/approval-text.js';

const FORM = { elicitation: { form: {} } };

interface FakeRequest {
  readonly ctx: ServerContext;
  readonly cancel: () => void;
  readonly notified: unknown[];
}

function request(options: { state?: unknown; responses?: Record<string, unknown>; capabilities?: object } = {}): FakeRequest {
  const controller = new AbortController();
  const notified: unknown[] = [];
  const ctx = {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      signal: controller.signal,
      notify: async (n: unknown) => void notified.push(n),
      requestState: () => options.state,
      ...(options.responses ? { inputResponses: options.responses } : {}),
      envelope: { 'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? FORM },
    },
  } as unknown as ServerContext;
  return { ctx, cancel: () => controller.abort(), notified };
}

const ask = (callId: string, signal?: AbortSignal): ApprovalRequest => {
  const fields = { kind: 'command' as const, tool: 'bash', command: 'npm publish', workdir: '/repo', rule: 'publishing', callId };
  return { ...fields, reason: describeApproval(fields), ...(signal ? { signal } : {}) };
};

/** A call that asks once (as the approval service would) and reports the decision as its text. */
function askingCall(trips: ApprovalRoundTrips, seen: { call?: CallRequest; decisions: Array<ApprovalDecision | undefined> }, signal?: AbortSignal) {
  return async (call: CallRequest): Promise<CallToolResult> => {
    seen.call = call;
    const decision = await trips.answer(ask(call.callId!, signal));
    seen.decisions.push(decision);
    return { content: [{ type: 'text', text: `decided ${decision}` }] };
  };
}

const call = (r: FakeRequest, command = 'npm publish'): CallRequest => ({ name: 'bash', args: { command, description: 'Publish' }, ctx: r.ctx });

function questionOf(answer: ModernCallResult): { key: string; state: string; message: string } {
  expect(answer).toMatchObject({ resultType: 'input_required' });
  const { inputRequests, requestState } = answer as { inputRequests: Record<string, { method: string; params: { message: string; mode: string } }>; requestState: string };
  const [key, question] = Object.entries(inputRequests)[0]!;
  expect(question).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
  return { key, state: requestState, message: question.params.message };
}

const textOf = (answer: ModernCallResult) => ((answer as CallToolResult).content[0] as { text: string }).text;

let trips: ApprovalRoundTrips;
beforeEach(() => (trips = new ApprovalRoundTrips()));

test('a call that asks nothing is answered with its own result; nothing waits', async () => {
  const answer = await trips.serve(call(request()), 'alice', async () => ({ content: [{ type: 'text', text: 'ran' }] }));
  expect(textOf(answer)).toBe('ran');
  expect(trips.waiting).toBe(0);
});

test('the call runs under a fresh call id the answerer recognises; another call id passes (undefined)', async () => {
  const seen: { call?: CallRequest; decisions: Array<ApprovalDecision | undefined> } = { decisions: [] };
  void trips.serve(call(request()), 'alice', askingCall(trips, seen));
  await Promise.resolve();
  expect(seen.call?.callId).toMatch(/^[0-9a-f-]{36}$/);
  expect(await trips.answer(ask('some-other-call'))).toBeUndefined();
});

test.each([
  [{ action: 'accept', content: {} }, 'allowed-once'],
  [{ action: 'accept' }, 'allowed-once'],
  [{ action: 'decline' }, 'rejected'],
  [{ action: 'cancel' }, 'cancelled'],
  [undefined, 'failed'],
])('answer %j → %s, and the retry gets the call\'s result', async (response, decision) => {
  const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
  const first = await trips.serve(call(request()), 'alice', askingCall(trips, seen));
  const { key, state, message } = questionOf(first);
  expect(message).toBe(describeApproval(ask('x')));
  expect(trips.waiting).toBe(1);
  const retry = request({ state, ...(response ? { responses: { [key]: response } } : {}) });
  const answer = await trips.serve(call(retry), 'alice', () => Promise.reject(new Error('a retry never starts a call')));
  expect(textOf(answer)).toBe(`decided ${decision}`);
  expect(seen.decisions).toEqual([decision]);
  expect(trips.waiting).toBe(0);
});

test('a retry of another caller, another command or an unknown state is refused and consumes nothing', async () => {
  const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
  const { key, state } = questionOf(await trips.serve(call(request()), 'alice', askingCall(trips, seen)));
  const accept = { [key]: { action: 'accept' } };
  const never = () => Promise.reject(new Error('never runs'));
  for (const [caller, command, sent] of [['bob', 'npm publish', state], ['alice', 'npm publish --force', state], ['alice', 'npm publish', 'nope'], [undefined, 'npm publish', state]] as const) {
    expect(textOf(await trips.serve(call(request({ state: sent, responses: accept }), command), caller, never))).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
  }
  expect(seen.decisions).toEqual([]);
  expect(textOf(await trips.serve(call(request({ state, responses: accept })), 'alice', never))).toBe('decided allowed-once');
});

test('arguments in another key order are the same call', async () => {
  const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
  const { key, state } = questionOf(await trips.serve(call(request()), 'alice', askingCall(trips, seen)));
  const retry = request({ state, responses: { [key]: { action: 'accept' } } });
  const reordered: CallRequest = { name: 'bash', args: { description: 'Publish', command: 'npm publish' }, ctx: retry.ctx };
  expect(textOf(await trips.serve(reordered, 'alice', () => Promise.reject(new Error('never'))))).toBe('decided allowed-once');
});

test('a client without elicitation passes (undefined); URL-mode only is needs-form; {} counts as form', async () => {
  for (const [capabilities, expected] of [[{}, undefined], [{ elicitation: { url: {} } }, 'needs-form']] as const) {
    const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
    const answer = await trips.serve(call(request({ capabilities })), 'alice', askingCall(trips, seen));
    expect(textOf(answer)).toBe(`decided ${expected}`);
  }
  const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
  questionOf(await trips.serve(call(request({ capabilities: { elicitation: {} } })), 'alice', askingCall(trips, seen)));
});

test('the approval limit withdraws a waiting question: cancelled, and its state no longer fits', async () => {
  const limit = new AbortController();
  const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
  const { key, state } = questionOf(await trips.serve(call(request()), 'alice', askingCall(trips, seen, limit.signal)));
  limit.abort();
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen.decisions).toEqual(['cancelled']);
  expect(trips.waiting).toBe(0);
  const late = await trips.serve(call(request({ state, responses: { [key]: { action: 'accept' } } })), 'alice', () => Promise.reject(new Error('never')));
  expect(textOf(late)).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
});

test('close() withdraws waiting questions and cancels later ones at once', async () => {
  const seen = { decisions: [] as Array<ApprovalDecision | undefined> };
  questionOf(await trips.serve(call(request()), 'alice', askingCall(trips, seen)));
  trips.close();
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen.decisions).toEqual(['cancelled']);
  const after = await trips.serve(call(request()), 'alice', askingCall(trips, seen));
  expect(textOf(after)).toBe('decided cancelled');
});

test('two approvals in one call: two rounds, each with its own state and key', async () => {
  const decisions: Array<ApprovalDecision | undefined> = [];
  const twice = async (c: CallRequest): Promise<CallToolResult> => {
    decisions.push(await trips.answer(ask(c.callId!)));
    decisions.push(await trips.answer(ask(c.callId!)));
    return { content: [{ type: 'text', text: decisions.join(',') }] };
  };
  const one = questionOf(await trips.serve(call(request()), 'alice', twice));
  const two = questionOf(await trips.serve(call(request({ state: one.state, responses: { [one.key]: { action: 'accept' } } })), 'alice', twice));
  expect([two.state, two.key]).not.toEqual([one.state, one.key]);
  expect(two.state).not.toBe(one.state);
  expect(two.key).not.toBe(one.key);
  // The first round's state is spent.
  expect(textOf(await trips.serve(call(request({ state: one.state, responses: { [one.key]: { action: 'accept' } } })), 'alice', twice))).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
  const done = await trips.serve(call(request({ state: two.state, responses: { [two.key]: { action: 'decline' } } })), 'alice', twice);
  expect(textOf(done)).toBe('allowed-once,rejected');
});

test("the call follows the open request: the first request's cancel after answering does nothing, the retry's cancel aborts the call", async () => {
  let signal!: AbortSignal;
  const run = async (c: CallRequest): Promise<CallToolResult> => {
    signal = c.ctx.mcpReq.signal;
    await trips.answer(ask(c.callId!));
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return { content: [{ type: 'text', text: 'aborted' }] };
  };
  const first = request();
  const { key, state } = questionOf(await trips.serve(call(first), 'alice', run));
  first.cancel();
  expect(signal.aborted).toBe(false);
  const retry = request({ state, responses: { [key]: { action: 'accept' } } });
  const answered = trips.serve(call(retry), 'alice', run);
  await new Promise((resolve) => setImmediate(resolve));
  expect(signal.aborted).toBe(false);
  retry.cancel();
  expect(textOf(await answered)).toBe('aborted');
});

test("progress goes to the open request only, under its own token; the latest of the wait goes first on the retry", async () => {
  let notify!: ServerContext['mcpReq']['notify'];
  let release!: () => void;
  const run = async (c: CallRequest): Promise<CallToolResult> => {
    notify = c.ctx.mcpReq.notify;
    await notify({ method: 'notifications/progress', params: { progressToken: c.progressToken!, progress: 1 } });
    await trips.answer(ask(c.callId!));
    await notify({ method: 'notifications/progress', params: { progressToken: c.progressToken!, progress: 10 } });
    await new Promise<void>((resolve) => (release = resolve));
    return { content: [{ type: 'text', text: 'done' }] };
  };
  const first = request();
  const { key, state } = questionOf(await trips.serve({ ...call(first), progressToken: 'first' }, 'alice', run));
  await notify({ method: 'notifications/progress', params: { progressToken: 'first', progress: 8 } });
  await notify({ method: 'notifications/progress', params: { progressToken: 'first', progress: 9 } });
  const retry = request({ state, responses: { [key]: { action: 'accept' } } });
  const answered = trips.serve({ ...call(retry), progressToken: 'retry' }, 'alice', run);
  await new Promise((resolve) => setImmediate(resolve));
  release();
  expect(textOf(await answered)).toBe('done');
  expect(first.notified).toEqual([{ method: 'notifications/progress', params: { progressToken: 'first', progress: 1 } }]);
  expect(retry.notified).toEqual([
    { method: 'notifications/progress', params: { progressToken: 'retry', progress: 9 } },
    { method: 'notifications/progress', params: { progressToken: 'retry', progress: 10 } },
  ]);
});
