// Issue 18 row 12: an approver that timed out, answered nothing or threw was
// reported to the model as "no approval answerer is configured", and
// escalation requests reached answerers without kind, command or workdir.
// Real compositions and a real LocalApprovalService; scripted answerers play
// the approver (a silent one waits on the request's signal: the configured
// timeout, 50 ms here, ends it — no sleeps).
import { APPROVAL_KINDS, ApprovalService, createHost, type ApprovalAnswerer, type ApprovalRequest, type DshHost } from '../../src/index.js';
import { approvalAnswerersModule } from '../../src/providers/policy/approval/approval.module.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { sandboxedEnvironment } from '../../src/plugins/sandboxed.environment.js';
import { ScriptedApprovalAnswerer, type ScriptedApproval } from '../../src/testing/scripted-approval-answerer.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { markerWorkspace, resultText } from '../support/approval-kit.js';

/** What each approver did → the escalation text, the `ask` rule text, the audited decision. */
const OUTCOMES: ReadonlyArray<readonly [string, ScriptedApproval | 'none', string, string, string]> = [
  ['timed out (no answer within approval.timeoutMs)', 'never', 'escalation rejected: no answer within 0.05s', 'command not approved: no answer within 0.05s', 'timed-out'],
  ['threw', { throws: 'dialog crashed' }, 'escalation rejected: the approver failed', 'command not approved: the approver failed', 'failed'],
  ['answered nothing (passed)', undefined, 'escalation rejected: no approver gave a decision', 'command not approved: no approver gave a decision', 'undecided'],
  ['answered unavailable', 'unavailable', 'escalation rejected: no approver gave a decision', 'command not approved: no approver gave a decision', 'undecided'],
  ['was not configured at all', 'none', 'escalation unavailable: no approval answerer is configured', 'command not approved: no approval answerer is configured', 'unavailable'],
];

/** One bound answerer that forwards to whatever the current test scripted (or passes when none is set). */
function switchboard(): { answerer: ApprovalAnswerer; set(next: ApprovalAnswerer | undefined): void } {
  let current: ApprovalAnswerer | undefined;
  return {
    answerer: { name: 'switchboard', kinds: APPROVAL_KINDS, answer: (request: ApprovalRequest) => (current ? current.answer(request) : Promise.resolve(undefined)) },
    set: (next) => void (current = next),
  };
}

/** The composition with the switchboard bound as its one answerer, or with no answerer at all. */
function composeHost(withAnswerer: boolean, build: (answerers: ApprovalAnswerer[]) => ReturnType<typeof localEnvironment>, board: ApprovalAnswerer) {
  return createHost(...build(withAnswerer ? [board] : []));
}

describeWithBwrap(`escalation outcomes under bwrap${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof markerWorkspace>;
  const board = switchboard();
  const hosts = new Map<boolean, DshHost>();
  const compose = (answerers: ApprovalAnswerer[]) => sandboxedEnvironment({ workspace: ws.dir, logLevel: 'error', approval: { timeoutMs: 50 }, answerers });

  beforeAll(async () => {
    ws = markerWorkspace('dsh-approval-outcome-esc-');
    for (const withAnswerer of [true, false]) hosts.set(withAnswerer, await composeHost(withAnswerer, compose, board.answerer));
  });
  afterAll(async () => {
    await Promise.all([...hosts.values()].map((host) => host.dispose()));
    ws.remove();
  });

  const escalate = () => ({
    command: `touch ${ws.marker}`,
    description: 'Create a file',
    sandbox_permissions: 'workspace-write',
    justification: 'The build writes here.',
  });

  it.each(OUTCOMES)('an approver that %s gets its own refusal text, and nothing runs', async (_what, answer, escalationText, _command, decision) => {
    const host = hosts.get(answer !== 'none')!;
    board.set(answer === 'none' ? undefined : new ScriptedApprovalAnswerer([answer]));
    const result = await host.openSession({ cwd: ws.dir }).call('bash', escalate());
    expect(result).toEqual({ content: [{ type: 'text', text: `Error: ${escalationText}` }], isError: true });
    expect(ws.ran()).toBe(false);
    expect(host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision });
  });

  it('policy never is named as the refuser, not the user', async () => {
    const host = hosts.get(true)!;
    const session = host.openSession({ cwd: ws.dir });
    host.get(ApprovalService).setPolicy(session.id, 'never');
    board.set(new ScriptedApprovalAnswerer(['allowed-once']));
    expect(resultText(await session.call('bash', escalate()))).toBe('Error: escalation rejected by policy never');
    expect(ws.ran()).toBe(false);
  });

  it('the answerer gets every typed field of the escalation: kind, command, workdir, both modes, justification', async () => {
    const scripted = new ScriptedApprovalAnswerer(['rejected']);
    board.set(scripted);
    await hosts.get(true)!.openSession({ cwd: ws.dir }).call('bash', escalate());
    expect(scripted.requests).toHaveLength(1);
    expect(scripted.requests[0]).toMatchObject({
      kind: 'escalation',
      tool: 'bash',
      command: `touch ${ws.marker}`,
      workdir: ws.dir,
      sandboxMode: 'read-only',
      requestedMode: 'workspace-write',
      justification: 'The build writes here.',
      reason: expect.stringMatching(/^Mode: workspace-write /),
    });
  });
});

describe('`ask` rule outcomes (real bash)', () => {
  let ws: ReturnType<typeof markerWorkspace>;
  const board = switchboard();
  const hosts = new Map<boolean, DshHost>();
  const compose = (answerers: ApprovalAnswerer[]) => [
    ...localEnvironment({ workspace: ws.dir, logLevel: 'error', approval: { timeoutMs: 50, rules: [{ match: 'touch', action: 'ask', name: 'touching' }] } }),
    approvalAnswerersModule(answerers),
  ];

  beforeAll(async () => {
    ws = markerWorkspace('dsh-approval-outcome-ask-');
    for (const withAnswerer of [true, false]) hosts.set(withAnswerer, await composeHost(withAnswerer, compose, board.answerer));
  });
  afterAll(async () => {
    await Promise.all([...hosts.values()].map((host) => host.dispose()));
    ws.remove();
  });

  const touch = () => ({ command: `touch ${ws.marker}`, description: 'Create a file' });

  it.each(OUTCOMES)('an approver that %s gets its own refusal text, and nothing runs', async (_what, answer, _escalation, commandText, decision) => {
    const host = hosts.get(answer !== 'none')!;
    board.set(answer === 'none' ? undefined : new ScriptedApprovalAnswerer([answer]));
    const result = await host.openSession({ cwd: ws.dir }).call('bash', touch());
    expect(result).toEqual({ content: [{ type: 'text', text: `Error: ${commandText}` }], isError: true });
    expect(ws.ran()).toBe(false);
    expect(host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision });
  });

  it('the answerer gets every typed field of the command: kind, command, workdir, rule', async () => {
    const scripted = new ScriptedApprovalAnswerer(['allowed-once']);
    board.set(scripted);
    const result = await hosts.get(true)!.openSession({ cwd: ws.dir }).call('bash', touch());
    expect(resultText(result)).toBe('(no output)');
    expect(ws.ran()).toBe(true);
    expect(scripted.requests[0]).toMatchObject({ kind: 'command', tool: 'bash', command: `touch ${ws.marker}`, workdir: ws.dir, rule: 'touching' });
    expect(scripted.requests[0]!.reason.split('\n')[0]).toBe('Mode: no sandbox mode');
  });
});
