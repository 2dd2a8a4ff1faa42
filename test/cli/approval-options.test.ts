// serve --approval-webhook / --approval-webhook-secret over the file's approval.webhook.
import { withApprovalFlags } from '../../src/cli/approval-options.js';

describe('withApprovalFlags', () => {
  it('leaves the composition alone without the flags', () => {
    const env = { approval: { timeoutMs: 5 } };
    expect(withApprovalFlags(env, {})).toBe(env);
  });

  it('sets url and secret file, each flag over its key, keeping the rest of approval', () => {
    const env = { approval: { timeoutMs: 5, webhook: { url: 'https://old.example/', secretFile: '/s', timeoutMs: 7 } } };
    expect(withApprovalFlags(env, { approvalWebhook: 'https://new.example/' })).toEqual({
      approval: { timeoutMs: 5, webhook: { url: 'https://new.example/', secretFile: '/s', timeoutMs: 7 } },
    });
    expect(withApprovalFlags({}, { approvalWebhook: 'http://127.0.0.1:1/', approvalWebhookSecret: '/run/secret' })).toEqual({
      approval: { webhook: { url: 'http://127.0.0.1:1/', secretFile: '/run/secret' } },
    });
  });

  it('refuses one flag without the other when the file gives no value', () => {
    expect(() => withApprovalFlags({}, { approvalWebhook: 'https://x.example/' })).toThrow('--approval-webhook needs --approval-webhook-secret <file>');
    expect(() => withApprovalFlags({}, { approvalWebhookSecret: '/s' })).toThrow('--approval-webhook-secret needs --approval-webhook <url>');
  });
});
