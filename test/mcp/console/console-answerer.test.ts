// The console as an answerer and a task view, on a real host and listener:
// a headless HTTP client (no elicitation) hits an `ask` rule, the console
// holds the question, an operator answers; the model-facing result and the
// audit name the operator. A running task's tail is read without consuming
// it, and an operator's kill is audited with their name.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { ApprovalService } from '../../../src/providers/policy/approval/approval-service.js';
import { ConsoleApprovalAnswerer } from '../../../src/mcp/console/console-answerer.js';
import { connectClient } from '../../support/mcp-clients.js';
import { approvingClient, modernHttp, modernText } from '../../support/modern-client.js';
import { CALLER_TOKENS, consoleRig, type ConsoleRig } from '../../support/console-kit.js';

let rig: ConsoleRig;
beforeAll(async () => {
  rig = await consoleRig((dir) => localEnvironment({ workspace: dir, logLevel: 'error', approval: { rules: [{ match: 'touch', action: 'ask' }] } }));
});
afterAll(async () => rig.close());

const text = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
const post = (pathname: string, body: unknown) => rig.api(pathname, { method: 'POST', body: JSON.stringify(body) });

describe('the console answers approvals', () => {
  it('tells the model who answers: elicitation, else the console', () => {
    const sections = rig.host.prompt().sections.filter((section) => section.name === 'approval:answerers');
    expect(sections).toHaveLength(1);
    expect(sections[0]!.text).toContain("are answered by: the user, in a form of your MCP client, if the client offers forms; else an operator, in this server's operator console");
  });

  it("an operator approves once: the command runs, the result and the audit record name the operator", async () => {
    const { client, transport } = await connectClient(new URL(rig.server.url), CALLER_TOKENS.alice);
    try {
      const marker = path.join(rig.dir, 'approved');
      const call = client.callTool({ name: 'bash', arguments: { command: `touch ${marker}`, description: 'Touch' } }) as Promise<CallToolResult>;
      const id = await rig.nextPending();
      const state = (await (await rig.api('/console/api/state')).json()) as { approvals: Array<Record<string, unknown>> };
      expect(state.approvals).toEqual([
        { id, callId: expect.any(String), session: expect.any(String), caller: 'alice', askedAt: expect.any(Number), kind: 'command', tool: 'bash', command: `touch ${marker}`, workdir: rig.dir, rule: 'touch' },
      ]);
      expect(existsSync(marker)).toBe(false);
      const answer = await post(`/console/api/approvals/${id}`, { verdict: 'approve' });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ approval: id, verdict: 'approve', operator: 'oscar' });
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(text(result)).toContain('[command approved once by operator "oscar" in the operator console]');
      expect(existsSync(marker)).toBe(true);
      expect(rig.host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision: 'allowed-once', answeredBy: 'console:oscar' });
      // Answered: a second answer finds nothing waiting.
      expect((await post(`/console/api/approvals/${id}`, { verdict: 'deny' })).status).toBe(404);
      const calls = (await (await rig.api('/console/api/audit?caller=alice')).json()) as Array<Record<string, unknown>>;
      expect(calls[0]).toMatchObject({ command: `touch ${marker}`, approval: 'allowed-once', answeredBy: 'console:oscar', outcome: 'ok' });
    } finally {
      await transport.close();
    }
  });

  it('an operator denies: the model reads who refused, nothing runs', async () => {
    const { client, transport } = await connectClient(new URL(rig.server.url), CALLER_TOKENS.bob);
    try {
      const marker = path.join(rig.dir, 'denied');
      const call = client.callTool({ name: 'bash', arguments: { command: `touch ${marker}`, description: 'Touch' } }) as Promise<CallToolResult>;
      const id = await rig.nextPending();
      expect((await post(`/console/api/approvals/${id}`, { verdict: 'deny' })).status).toBe(200);
      const result = await call;
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('command rejected by operator "oscar" (console)');
      expect(existsSync(marker)).toBe(false);
      expect(rig.host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision: 'rejected', answeredBy: 'console:oscar' });
    } finally {
      await transport.close();
    }
  });

  it('answers a 2026-07-28 call too (no elicitation declared), and lists its session while it waits', async () => {
    const approver = approvingClient({});
    const client = await modernHttp(new URL(rig.server.url), CALLER_TOKENS.bob, approver.client);
    try {
      const marker = path.join(rig.dir, 'approved-modern');
      const call = client.callTool({ name: 'bash', arguments: { command: `touch ${marker}`, description: 'Touch' } });
      const id = await rig.nextPending();
      const state = (await (await rig.api('/console/api/state')).json()) as { sessions: Array<{ id: string; caller: string }>; approvals: Array<{ id: string; session: string }> };
      expect(state.sessions.map((s) => s.id)).toContain(state.approvals.find((a) => a.id === id)!.session);
      expect((await post(`/console/api/approvals/${id}`, { verdict: 'approve' })).status).toBe(200);
      expect(modernText(await call)).toContain('[command approved once by operator "oscar" in the operator console]');
      expect(existsSync(marker)).toBe(true);
      expect(approver.asked).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("shows a running task's tail without consuming it, and kills it in the operator's name", async () => {
    const { client, transport } = await connectClient(new URL(rig.server.url), CALLER_TOKENS.alice);
    try {
      const started = (await client.callTool({
        name: 'bash',
        arguments: { command: 'echo first-line; exec sleep 600', description: 'Wait', run_in_background: true },
      })) as CallToolResult;
      const taskId = /\b(bash-\d+)\b/.exec(text(started))![1]!;
      const state = (await (await rig.api('/console/api/state')).json()) as { sessions: Array<{ id: string; caller: string; runningTasks: number }> };
      const session = state.sessions.find((s) => s.caller === 'alice' && s.runningTasks === 1)!;
      let detail: { tasks: Array<{ id: string; status: string; tail: string }> };
      // The task prints as it starts: read the tail until its line is there (each read is a real request).
      do detail = (await (await rig.api(`/console/api/sessions/${session.id}`)).json()) as typeof detail;
      while (!detail.tasks[0]?.tail.includes('first-line'));
      expect(detail.tasks[0]).toMatchObject({ id: taskId, status: 'running' });
      const killed = await post(`/console/api/sessions/${session.id}/tasks/${taskId}/kill`, {});
      expect(killed.status).toBe(200);
      expect(await killed.json()).toEqual({ task: taskId, result: 'killed', operator: 'oscar' });
      const events = rig.parts.feed.recent().filter((entry) => 'event' in entry && entry.event === 'operator_action');
      expect(events.at(-1)).toMatchObject({ operator: 'oscar', action: 'kill_task', session: session.id, caller: 'alice', taskId, result: 'killed' });
      // The model still reads the whole output: the console's tail consumed nothing.
      const output = (await client.callTool({ name: 'task_output', arguments: { task_id: taskId, wait: true } })) as CallToolResult;
      expect(text(output)).toContain('first-line');
      expect((await post(`/console/api/sessions/${session.id}/tasks/no-such-task/kill`, {})).status).toBe(404);
    } finally {
      await transport.close();
    }
  });
});

describe('ConsoleApprovalAnswerer', () => {
  it('withdraws a question when the approval service stops waiting', async () => {
    const answerer = new ConsoleApprovalAnswerer();
    const stop = new AbortController();
    const answer = answerer.answer({ kind: 'command', tool: 'bash', command: 'touch x', callId: 'c1', reason: 'r', signal: stop.signal });
    expect(answerer.pending()).toHaveLength(1);
    stop.abort();
    await expect(answer).rejects.toThrow('console: the approval was withdrawn before an operator answered');
    expect(answerer.pending()).toEqual([]);
    expect(answerer.decide('anything', 'approve', 'oscar')).toBe('unknown');
  });
});
