// Issue 22 leftover: progress of a call that waits between two
// input_required requests. Each request has its own progress token; while
// none is open the latest progress is kept and goes out first on the retry.
import type { Notification, ServerContext } from '@modelcontextprotocol/server';
import { CallRelay } from '../../../src/mcp/approvals/call-relay.js';

/** A request context that records what was sent on its stream (a fake: only signal and notify are read). */
function request(): { ctx: ServerContext; sent: Notification[]; cancel: () => void } {
  const sent: Notification[] = [];
  const controller = new AbortController();
  const ctx = { mcpReq: { signal: controller.signal, notify: (n: Notification) => (sent.push(n), Promise.resolve()) } } as unknown as ServerContext;
  return { ctx, sent, cancel: () => controller.abort(new Error('cancelled')) };
}

const progress = (progress: number, message: string): Notification =>
  ({ method: 'notifications/progress', params: { progressToken: 'first-token', progress, message } }) as Notification;

test('progress goes out under the open request\'s own token; between requests the latest is held and sent first on the retry', async () => {
  const first = request();
  const relay = new CallRelay(first.ctx, 7);
  await relay.ctx.mcpReq.notify(progress(1, 'a'));
  expect(first.sent.map((n) => n.params)).toEqual([{ progressToken: 7, progress: 1, message: 'a' }]);

  relay.detach();
  await relay.ctx.mcpReq.notify(progress(2, 'still running after 1s'));
  await relay.ctx.mcpReq.notify(progress(3, 'still running after 2s'));
  expect(first.sent).toHaveLength(1);

  const retry = request();
  relay.attach(retry.ctx, 'retry-token');
  await relay.ctx.mcpReq.notify(progress(4, 'b'));
  expect(retry.sent.map((n) => n.params)).toEqual([
    { progressToken: 'retry-token', progress: 3, message: 'still running after 2s' },
    { progressToken: 'retry-token', progress: 4, message: 'b' },
  ]);
  expect(first.sent).toHaveLength(1);
});

test('a retry without a progress token gets no progress (held or new), other notifications still go to it', async () => {
  const first = request();
  const relay = new CallRelay(first.ctx, 'first-token');
  relay.detach();
  await relay.ctx.mcpReq.notify(progress(1, 'held'));
  const retry = request();
  relay.attach(retry.ctx);
  await relay.ctx.mcpReq.notify(progress(2, 'new'));
  await relay.ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'x' } } as Notification);
  expect(retry.sent.map((n) => n.method)).toEqual(['notifications/message']);
});

test('the open request\'s cancel cancels the call; a detached one\'s no longer does', () => {
  const first = request();
  const relay = new CallRelay(first.ctx);
  relay.detach();
  first.cancel();
  expect(relay.ctx.mcpReq.signal.aborted).toBe(false);
  const retry = request();
  relay.attach(retry.ctx);
  retry.cancel();
  expect(relay.ctx.mcpReq.signal.aborted).toBe(true);
});
