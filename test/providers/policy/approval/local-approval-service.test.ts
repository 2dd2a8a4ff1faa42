import { describeApproval } from '../../../../src/providers/policy/approval/approval-text.js';
import { LocalApprovalService } from '../../../../src/providers/policy/approval/local-approval-service.js';
import { APPROVAL_KINDS, type ApprovalAnswerer, type ApprovalAsk } from '../../../../src/providers/policy/approval/approval-service.js';
import type { Logger } from '../../../../src/providers/logging/logger.js';
import { ScriptedApprovalAnswerer } from '../../../../src/testing/scripted-approval-answerer.js';
import { fakeSession } from '../../../support/fake-session.js';

const session = fakeSession('s1');
const ask = (extra: Partial<ApprovalAsk> = {}): ApprovalAsk => ({
  session,
  kind: 'escalation',
  tool: 'bash',
  command: 'make',
  sandboxMode: 'read-only',
  requestedMode: 'workspace-write',
  justification: 'builds need to write',
  callId: 'call-1',
  ...extra,
});

class RecordingLogger implements Logger {
  readonly warnings: string[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(message: string): void {
    this.warnings.push(message);
  }
}

describe('LocalApprovalService', () => {
  it('is unavailable with no answerer, and undecided when every answerer passes', async () => {
    expect(await new LocalApprovalService().request(ask())).toBe('unavailable');
    const passing = [new ScriptedApprovalAnswerer([undefined], 'a'), new ScriptedApprovalAnswerer([undefined], 'b')];
    expect(await new LocalApprovalService(passing).request(ask())).toBe('undecided');
    expect(passing.map((answerer) => answerer.requests.length)).toEqual([1, 1]);
  });

  it('consults answerers in order; the first that answers decides', async () => {
    const first = new ScriptedApprovalAnswerer([undefined], 'first');
    const second = new ScriptedApprovalAnswerer(['allowed-once'], 'second');
    const third = new ScriptedApprovalAnswerer(['rejected'], 'third');
    const service = new LocalApprovalService([first, second, third]);
    expect(await service.request(ask())).toBe('allowed-once');
    expect(third.requests).toEqual([]);
    expect(service.audit()[0]).toMatchObject({ decision: 'allowed-once', answeredBy: 'second' });
  });

  it('fails closed (failed) when an answerer throws (sync or async) or returns a non-decision, and logs why', async () => {
    const logger = new RecordingLogger();
    const after = new ScriptedApprovalAnswerer(['allowed-once'], 'after');
    const throwing: ApprovalAnswerer = {
      name: 'broken',
      kinds: APPROVAL_KINDS,
      answer: () => {
        throw new Error('dialog crashed');
      },
    };
    const rejecting: ApprovalAnswerer = { name: 'async', kinds: APPROVAL_KINDS, answer: async () => Promise.reject(new Error('socket closed')) };
    const bogus: ApprovalAnswerer = { name: 'bogus', kinds: APPROVAL_KINDS, answer: async () => 'yes' as never };
    for (const answerer of [throwing, rejecting, bogus]) {
      expect(await new LocalApprovalService([answerer, after], {}, logger).request(ask())).toBe('failed');
    }
    expect(after.requests).toEqual([]);
    expect(logger.warnings).toEqual([
      expect.stringContaining('"broken" failed (dialog crashed)'),
      expect.stringContaining('"async" failed (socket closed)'),
      expect.stringContaining('"bogus" returned "yes"'),
    ]);
  });

  it('is cancelled for an aborted signal without asking, and when the signal fires while an answerer waits', async () => {
    const answerer = new ScriptedApprovalAnswerer(['allowed-once']);
    const service = new LocalApprovalService([answerer]);
    expect(await service.request(ask({ signal: AbortSignal.abort() }))).toBe('cancelled');
    expect(answerer.requests).toEqual([]);

    const controller = new AbortController();
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    const forever: ApprovalAnswerer = {
      name: 'human',
      kinds: APPROVAL_KINDS,
      answer: () => {
        asked();
        return new Promise(() => undefined);
      },
    };
    const pending = new LocalApprovalService([forever]).request(ask({ signal: controller.signal }));
    await waiting;
    controller.abort();
    expect(await pending).toBe('cancelled');
  });

  it('rejects without asking under policy never; per session, and as the configured default', async () => {
    const answerer = new ScriptedApprovalAnswerer([], 'scripted', 'allowed-once');
    const service = new LocalApprovalService([answerer]);
    service.setPolicy('s1', 'never');
    expect(await service.request(ask())).toBe('rejected');
    expect(answerer.requests).toEqual([]);
    expect(await service.request(ask({ session: fakeSession('s2') }))).toBe('allowed-once');
    service.setPolicy('s1', 'ask');
    expect(await service.request(ask())).toBe('allowed-once');

    const strict = new LocalApprovalService([answerer], { policy: 'never' });
    expect(await strict.request(ask({ session: undefined }))).toBe('rejected');
    expect(strict.audit()[0]).toMatchObject({ decision: 'rejected', answeredBy: 'policy:never' });
  });

  it('a policy set on a session object lives in its scope: a twin with the same id still asks, and the policy is gone with the session', async () => {
    const answerer = new ScriptedApprovalAnswerer([], 'scripted', 'allowed-once');
    const service = new LocalApprovalService([answerer]);
    const mine = fakeSession('shared');
    const twin = fakeSession('shared');
    service.setPolicy(mine, 'never');
    expect(await service.request(ask({ session: mine }))).toBe('rejected');
    expect(await service.request(ask({ session: twin }))).toBe('allowed-once');
    service.setPolicy(mine, 'ask');
    expect(await service.request(ask({ session: mine }))).toBe('allowed-once');
    service.setPolicy(mine, 'never');
    await mine.dispose();
    expect(service.policyOf(mine)).toBe('ask');
    expect(() => service.setPolicy(mine, 'never')).toThrow('the session is disposed: no the approval policy for it');
  });

  it('answerers get the fields and a reason built from them, never the requester\'s own text', async () => {
    const answerer = new ScriptedApprovalAnswerer(['rejected']);
    await new LocalApprovalService([answerer]).request({ ...ask(), reason: 'run `ls` (harmless)' });
    expect(answerer.requests[0]).toMatchObject({ command: 'make', requestedMode: 'workspace-write', reason: describeApproval(ask()) });
    expect(Object.isFrozen(answerer.requests[0])).toBe(true);
  });

  it('records every request with its decision; audit() returns a copy', async () => {
    let now = 1000;
    const clock = { now: () => now++ };
    const service = new LocalApprovalService([new ScriptedApprovalAnswerer(['rejected'], 'user')], {}, undefined, clock);
    await service.request(ask({ callId: 'c1', signal: new AbortController().signal }));
    await service.request(ask({ callId: 'c2', session: undefined }));
    const records = service.audit();
    const fields = {
      kind: 'escalation',
      tool: 'bash',
      command: 'make',
      reason: describeApproval(ask()),
      sandboxMode: 'read-only',
      requestedMode: 'workspace-write',
      justification: 'builds need to write',
    };
    expect(records).toEqual([
      { request: { ...fields, callId: 'c1', sessionId: 's1' }, decision: 'rejected', answeredBy: 'user', requestedAt: 1000, at: 1001 },
      { request: { ...fields, callId: 'c2' }, decision: 'undecided', requestedAt: 1002, at: 1003 },
    ]);
    (records as unknown[]).length = 0;
    expect(service.audit()).toHaveLength(2);
  });

  it('keeps only the most recent maxAuditRecords', async () => {
    const service = new LocalApprovalService([], { maxAuditRecords: 2 });
    for (const callId of ['a', 'b', 'c']) await service.request(ask({ callId }));
    expect(service.audit().map((record) => record.request.callId)).toEqual(['b', 'c']);
  });

  it('rejects bad input with clear errors', async () => {
    const service = new LocalApprovalService();
    expect(() => service.setPolicy('s1', 'sometimes' as never)).toThrow('invalid approval policy: expected ask or never, got "sometimes"');
    expect(() => service.setPolicy('', 'ask')).toThrow(/^invalid session id/);
    expect(() => service.setPolicy(42 as never, 'ask')).toThrow('invalid session id: expected a session or a non-empty session id, got 42');
    await expect(service.request(null as never)).rejects.toThrow(/^invalid approval request/);
    await expect(service.request({ ...ask(), tool: 3 } as never)).rejects.toThrow('invalid approval request: tool must be a string, got 3');
    await expect(service.request({ ...ask(), kind: undefined } as never)).rejects.toThrow('invalid approval request: kind must be escalation or command, got undefined');
    await expect(service.request({ ...ask(), command: undefined } as never)).rejects.toThrow('invalid approval request: command must be a string, got undefined');
    await expect(service.request({ ...ask(), requestedMode: undefined })).rejects.toThrow('invalid approval request: an escalation needs requestedMode');
    await expect(service.request({ ...ask(), sandboxMode: 'wide-open' as never })).rejects.toThrow(/^invalid approval request: sandboxMode must be one of/);
    expect(() => new LocalApprovalService([], { maxAuditRecords: 0 })).toThrow(/^invalid approval config: maxAuditRecords/);
  });
});
