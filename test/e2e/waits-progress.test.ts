// Issue 22 leftover 1: progress of a call whose approval waits between the
// two input_required requests. The real 2.x SDK client retries on a new
// request id, which is its new progress token: the heartbeats sent while the
// person decided reach its `onprogress` with the retry, under that token.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { serverDirs, startHttpServer } from '../support/mcp-clients.js';
import { approvingClient, modernText, overHttp, overStdio, type ApprovingClient } from '../support/modern-client.js';

const RULE = ['approval:', '  rules:', '    - { match: echo slow-answer, action: ask, name: slow answer }', ''].join('\n');

/** The person at the client takes this long to answer: two heartbeat intervals pass meanwhile. */
const THINKING_MS = 1300;

/** What the client saw, in order: the server's heartbeats and the moment it answered the question. */
type Seen = string[];

/** An approving client whose answer comes after THINKING_MS (a person reading the question, not a synchronisation). */
function slowApprover(seen: Seen): ApprovingClient {
  const approver = approvingClient();
  approver.client.setRequestHandler('elicitation/create', async (request: ElicitRequest): Promise<ElicitResult> => {
    approver.asked.push(String((request.params as { message?: string }).message));
    await new Promise((resolve) => setTimeout(resolve, THINKING_MS));
    seen.push('answered');
    return { action: 'accept', content: {} };
  });
  return approver;
}

async function callReportingProgress(approver: ApprovingClient, seen: Seen): Promise<{ text: string; afterAnswer: string[] }> {
  const result = await approver.client.callTool({ name: 'bash', arguments: { command: 'echo slow-answer', description: 'Ask first' } }, {
    onprogress: (progress: { message?: string }) => {
      // The SDK's own driver reports its rounds through the same callback; only the server's heartbeats count here.
      if (progress.message?.startsWith('still running after')) seen.push(progress.message);
    },
  });
  return { text: modernText(result), afterAnswer: seen.slice(seen.indexOf('answered') + 1) };
}

function expectHeldHeartbeat({ text, afterAnswer }: { text: string; afterAnswer: string[] }): void {
  expect(text).toBe('slow-answer');
  // `echo` itself takes no interval: the first progress after the answer is the heartbeat held while the question waited,
  // delivered on the retry under the retry's token (the client drops progress under any other).
  expect(afterAnswer[0]).toMatch(/^still running after \d+s$/);
}

describe('2026-07-28: progress while an approval waits', () => {
  let dirs: ReturnType<typeof serverDirs>;
  let config: string;
  beforeEach(() => {
    dirs = serverDirs();
    config = path.join(dirs.root, 'approvals.yaml');
    writeFileSync(config, RULE);
  });
  afterEach(() => dirs.cleanup());

  test('stdio: the heartbeat sent while the person decided reaches the client with the retry', async () => {
    const seen: Seen = [];
    const approver = slowApprover(seen);
    await overStdio(approver, dirs.workspace, dirs.dshHome, ['--config', config, '--heartbeat-interval', '0.5']);
    try {
      expectHeldHeartbeat(await callReportingProgress(approver, seen));
      expect(approver.asked).toHaveLength(1);
    } finally {
      await approver.client.close();
    }
  }, 60_000);

  test('HTTP: the same on the retry\'s response stream', async () => {
    const server = await startHttpServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--config', config, '--heartbeat-interval', '0.5'] });
    const seen: Seen = [];
    const approver = slowApprover(seen);
    try {
      await overHttp(approver, server.url, server.token!);
      expectHeldHeartbeat(await callReportingProgress(approver, seen));
    } finally {
      await approver.client.close();
      server.process.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);
});
