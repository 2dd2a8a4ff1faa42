import { InvalidArgumentError, type Command } from 'commander';
import type { CliEnvironment } from './cli-options.js';

/** `serve --approval-webhook <url> --approval-webhook-secret <file>`: `approval.webhook` from flags. */
export interface ApprovalFlags {
  readonly approvalWebhook?: string;
  readonly approvalWebhookSecret?: string;
}

function parseUrl(value: string): string {
  if (!/^https?:\/\/\S+$/.test(value)) throw new InvalidArgumentError('expected an http:// or https:// URL');
  return value;
}

export function addApprovalOptions(command: Command): Command {
  return command
    .option('--approval-webhook <url>', 'POST approvals (escalations, ask rules) to this URL, signed; answers by response or by POST /approvals/<id> (approval.webhook.url)', parseUrl)
    .option('--approval-webhook-secret <file>', 'the HMAC secret of --approval-webhook, checked like --token-file (approval.webhook.secretFile)');
}

/** The composition with the flags over the file's `approval.webhook` (each flag over its key). */
export function withApprovalFlags(environment: CliEnvironment, flags: ApprovalFlags): CliEnvironment {
  if (flags.approvalWebhook === undefined && flags.approvalWebhookSecret === undefined) return environment;
  const approval = environment.approval ?? {};
  const webhook = {
    ...approval.webhook,
    ...(flags.approvalWebhook === undefined ? {} : { url: flags.approvalWebhook }),
    ...(flags.approvalWebhookSecret === undefined ? {} : { secretFile: flags.approvalWebhookSecret }),
  };
  if (webhook.url === undefined) throw new Error('--approval-webhook-secret needs --approval-webhook <url> (or approval.webhook.url in the config file)');
  if (webhook.secretFile === undefined) throw new Error('--approval-webhook needs --approval-webhook-secret <file> (or approval.webhook.secretFile in the config file)');
  return { ...environment, approval: { ...approval, webhook: { ...webhook, url: webhook.url, secretFile: webhook.secretFile } } };
}
