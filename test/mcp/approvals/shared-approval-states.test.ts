// Two ApprovalRoundTrips (two replicas) with SharedApprovalStates over one
// key and one in-memory registry, driven with fake request contexts: a call
// of several rounds moves between them and each question is answered once;
// a re-run whose question differs from the one answered asks it anew; the
// seal refuses what it did not write, and an expired or used state.
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { ApprovalRoundTrips, STALE_APPROVAL_ANSWER, type ModernCallResult } from '../../../src/mcp/approvals/approval-round-trips.js';
import { ApprovalStateSeal } from '../../../src/mcp/approvals/approval-state-seal.js';
import { SharedApprovalStates } from '../../../src/mcp/approvals/shared-approval-states.js';
import type { CallRequest } from '../../../src/mcp/calls/call-runner.js';
import type { ApprovalDecision, ApprovalFields, ApprovalRequest } from '../../../src/providers/policy/approval/approval-service.js';
import { describeApproval } from '../../../src/providers/policy/approval/approval-text.js';
import { isUsedMarker } from '../../../src/providers/registry/used-marker.js';
import { MemorySessionRegistry } from '../support/memory-session-registry.js';

const KEY = Buffer.alloc(32, 7);
const ACCEPT = { action: 'accept', content: {} };
const NEVER = () => Promise.reject(new Error('a retry on the replica that waits never starts a call'));

function request(options: { state?: unknown; responses?: Record<string, unknown> } = {}): ServerContext {
  return {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      signal: new AbortController().signal,
      notify: async () => undefined,
      requestState: () => options.state,
      ...(options.responses ? { inputResponses: options.responses } : {}),
      envelope: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
    },
  } as unknown as ServerContext;
}

const call = (ctx: ServerContext, command = 'npm publish'): CallRequest => ({ name: 'bash', args: { command, description: 'Publish' }, ctx });

const publish: ApprovalFields = { kind: 'command', tool: 'bash', command: 'npm publish', workdir: '/repo', rule: 'publishing' };
const widen: ApprovalFields = { kind: 'escalation', tool: 'bash', command: 'npm publish', workdir: '/repo', sandboxMode: 'workspace-write', requestedMode: 'danger-full-access', justification: 'needs the network' };
const asking = (fields: ApprovalFields, callId: string): ApprovalRequest => ({ ...fields, callId, reason: describeApproval(fields) });

function questionOf(answer: ModernCallResult): { key: string; state: string; message: string } {
  expect(answer).toMatchObject({ resultType: 'input_required' });
  const { inputRequests, requestState } = answer as { inputRequests: Record<string, { params: { message: string } }>; requestState: string };
  const [key, question] = Object.entries(inputRequests)[0]!;
  return { key, state: requestState, message: question.params.message };
}

const textOf = (answer: ModernCallResult) => ((answer as CallToolResult).content[0] as { text: string }).text;

let registry: MemorySessionRegistry;
let a: ApprovalRoundTrips;
let b: ApprovalRoundTrips;
/** Calls (of any replica) that got past every approval: the command "ran". */
let ran: string[];

function replica(now?: () => number): ApprovalRoundTrips {
  const trips = new ApprovalRoundTrips();
  trips.acrossReplicas(new SharedApprovalStates({ key: KEY, registry, timeoutMs: 60_000, ...(now ? { now } : {}) }));
  return trips;
}

/** A call that asks `questions()` in turn (on whichever replica runs it) and runs when every one is allowed. */
function asker(trips: () => ApprovalRoundTrips, questions: () => ApprovalFields[]) {
  return async (c: CallRequest): Promise<CallToolResult> => {
    const decisions: Array<ApprovalDecision | undefined> = [];
    for (const fields of questions()) {
      const decision = await trips().answer(asking(fields, c.callId!));
      decisions.push(decision);
      if (decision !== 'allowed-once') return { content: [{ type: 'text', text: `refused: ${decisions.join(',')}` }] };
    }
    ran.push(c.callId!);
    return { content: [{ type: 'text', text: `ran: ${decisions.join(',')}` }] };
  };
}

beforeEach(() => {
  registry = new MemorySessionRegistry();
  a = replica();
  b = replica();
  ran = [];
});

afterEach(() => {
  a.close();
  b.close();
});

test('two rounds across replicas: asked on A, first answered on B (which asks the second), second answered on A; it runs once', async () => {
  const onA = asker(() => a, () => [publish, widen]);
  const onB = asker(() => b, () => [publish, widen]);
  const one = questionOf(await a.serve(call(request()), 'alice', onA));
  expect(one.message).toBe(describeApproval(publish));
  const two = questionOf(await b.serve(call(request({ state: one.state, responses: { [one.key]: ACCEPT } })), 'alice', onB));
  expect(two.message).toBe(describeApproval(widen));
  // A waits on the first question still; the second's state is B's, so A runs the call again with both answers.
  const done = await a.serve(call(request({ state: two.state, responses: { [two.key]: ACCEPT } })), 'alice', onA);
  expect(textOf(done)).toBe('ran: allowed-once,allowed-once');
  expect(ran).toHaveLength(1);
  // Every state answered once is spent, wherever it is sent.
  for (const [trips, spent] of [[a, one], [b, one], [a, two], [b, two]] as const) {
    expect(textOf(await trips.serve(call(request({ state: spent.state, responses: { [spent.key]: ACCEPT } })), 'alice', onA))).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
  }
  expect(ran).toHaveLength(1);
  // The used nonces are markers in the registry, nothing a reaper ends a sandbox for.
  expect([...registry.records.values()].every(isUsedMarker)).toBe(true);
  expect(registry.records.size).toBe(2);
});

test('a re-run that asks another question than the one answered asks it anew: nothing is approved unseen', async () => {
  let command = 'npm publish';
  const questions = () => [{ ...publish, command }];
  const one = questionOf(await a.serve(call(request()), 'alice', asker(() => a, questions)));
  // Between the runs, what the call asks changed (say, a rule or the directory).
  command = 'npm publish --force';
  const again = questionOf(await b.serve(call(request({ state: one.state, responses: { [one.key]: ACCEPT } })), 'alice', asker(() => b, questions)));
  expect(again.message).toBe(describeApproval({ ...publish, command: 'npm publish --force' }));
  expect(ran).toHaveLength(0);
  const done = await a.serve(call(request({ state: again.state, responses: { [again.key]: { action: 'decline' } } })), 'alice', asker(() => a, questions));
  expect(textOf(done)).toBe('refused: rejected');
  expect(ran).toHaveLength(0);
});

test('a decision of an earlier round is carried as given: a declined first round stays declined on another replica', async () => {
  // A call that goes on after a refusal of its first question and asks a second (as a plugin might).
  const goesOn = (trips: () => ApprovalRoundTrips) => async (c: CallRequest): Promise<CallToolResult> => {
    const first = await trips().answer(asking(publish, c.callId!));
    const second = await trips().answer(asking(widen, c.callId!));
    if (first === 'allowed-once' && second === 'allowed-once') ran.push(c.callId!);
    return { content: [{ type: 'text', text: `${first},${second}` }] };
  };
  const one = questionOf(await a.serve(call(request()), 'alice', goesOn(() => a)));
  const two = questionOf(await a.serve(call(request({ state: one.state, responses: { [one.key]: { action: 'decline' } } })), 'alice', NEVER));
  const done = await b.serve(call(request({ state: two.state, responses: { [two.key]: ACCEPT } })), 'alice', goesOn(() => b));
  expect(textOf(done)).toBe('rejected,allowed-once');
  expect(ran).toHaveLength(0);
});

test('a state is refused for another caller, another call, after its expiry, or unsealed; a registry that fails refuses too', async () => {
  let clock = 1_000_000;
  const later = replica(() => clock);
  const asks = asker(() => later, () => [publish]);
  const one = questionOf(await a.serve(call(request()), 'alice', asker(() => a, () => [publish])));
  const retry = (state: unknown, command?: string) => call(request({ state, responses: { [one.key]: ACCEPT } }), command);
  const stale = `Error: ${STALE_APPROVAL_ANSWER}`;
  expect(textOf(await b.serve(retry(one.state), 'bob', asks))).toBe(stale);
  expect(textOf(await b.serve(retry(one.state, 'npm publish --force'), 'alice', asks))).toBe(stale);
  expect(textOf(await b.serve(retry(new ApprovalStateSeal(Buffer.alloc(32, 8)).seal(new ApprovalStateSeal(KEY).open(one.state)!)), 'alice', asks))).toBe(stale);
  // Past its expiry on a replica whose clock says so.
  clock = Date.now() + 61_000;
  expect(textOf(await later.serve(retry(one.state), 'alice', asks))).toBe(stale);
  // A registry that cannot mark the nonce used: refused (fail closed), and nothing marked.
  const failing = new ApprovalRoundTrips();
  const broken = Object.assign(new MemorySessionRegistry(), { register: () => Promise.reject(new Error('registry down')) });
  failing.acrossReplicas(new SharedApprovalStates({ key: KEY, registry: broken, timeoutMs: 60_000 }));
  expect(textOf(await failing.serve(retry(one.state), 'alice', asker(() => failing, () => [publish])))).toBe(stale);
  expect(ran).toHaveLength(0);
  // None of these used the state: its caller answers it still.
  expect(textOf(await b.serve(retry(one.state), 'alice', asker(() => b, () => [publish])))).toBe('ran: allowed-once');
  later.close();
  failing.close();
});

test('without acrossReplicas a state is a random key of this table only (as before shared sessions)', async () => {
  const alone = new ApprovalRoundTrips();
  const one = questionOf(await alone.serve(call(request()), 'alice', asker(() => alone, () => [publish])));
  expect(one.state).toMatch(/^[A-Za-z0-9_-]{24}$/);
  expect(textOf(await b.serve(call(request({ state: one.state, responses: { [one.key]: ACCEPT } })), 'alice', NEVER))).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
  alone.close();
});
