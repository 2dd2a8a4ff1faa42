import type { ContainerModuleLoadOptions } from 'inversify';
import { hideServerFile } from '../../../../core/server-files.js';
import { readSecretFile } from '../../../../core/secret-file.js';
import { Logger } from '../../../logging/logger.js';
import { ApprovalAnswerer } from '../approval-service.js';
import { ApprovalCallbacks, WebhookApprovalAnswerer } from './webhook-answerer.js';
import type { WebhookConfig } from './webhook-config.js';

const SECRET_LABEL = 'approval.webhook.secretFile';

/**
 * Binds the webhook answerer (as an `ApprovalAnswerer` and as the
 * `ApprovalCallbacks` the HTTP server's `/approvals/<id>` endpoint finds).
 * The secret file is read now, checked like `--token-file`: a file another
 * user could replace, or a secret shorter than 16 characters, fails the load.
 */
export function bindWebhookAnswerer(bind: ContainerModuleLoadOptions['bind'], config: WebhookConfig): void {
  const { secret, warnings, notes } = readSecretFile(SECRET_LABEL, config.secretFile);
  if (secret.length < 16 || /\s/.test(secret)) {
    throw new Error(`${SECRET_LABEL} ${config.secretFile}: the secret must have at least 16 characters and no whitespace`);
  }
  // No command reads it (docs/security.md#hidden-server-files).
  hideServerFile(config.secretFile);
  let told = false;
  const answerer = new WebhookApprovalAnswerer(config, secret);
  bind(ApprovalCallbacks)
    .toDynamicValue((context) => {
      const logger = context.get(Logger, { optional: true });
      if (!told) for (const line of warnings) logger?.warn(line);
      if (!told) for (const line of notes) logger?.info(line);
      told = true;
      return answerer;
    })
    .inSingletonScope();
  bind(ApprovalAnswerer).toService(ApprovalCallbacks as never);
}
