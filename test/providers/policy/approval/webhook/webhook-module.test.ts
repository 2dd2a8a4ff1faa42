// Loading the webhook: its secret file is checked like --token-file, its
// config like every provider's, and a config file's relative path is its own.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../../../../src/container/create-host.js';
import { serverFiles } from '../../../../../src/core/server-files.js';
import { validateConfig } from '../../../../../src/plugins/config/config-file.js';
import { localEnvironment } from '../../../../../src/plugins/local.environment.js';
import { ApprovalCallbacks } from '../../../../../src/providers/policy/approval/webhook/webhook-answerer.js';
import { secretFile } from '../../../../support/webhook-receiver.js';

const compose = (webhook: Record<string, unknown>) =>
  createHost(...localEnvironment({ workspace: os.tmpdir(), logLevel: 'error', approval: { webhook: webhook as never } }));

describe('approval.webhook loading', () => {
  it('binds the answerer with a private secret file, and hides the file from commands', async () => {
    const secret = secretFile();
    try {
      const host = await compose({ url: 'http://127.0.0.1:9/hook', secretFile: secret.file });
      expect(host.isBound(ApprovalCallbacks)).toBe(true);
      expect(serverFiles()).toContain(secret.file);
      await host.dispose();
    } finally {
      secret.remove();
    }
  });

  it.each([
    ['world-writable', 0o666, 'is writable by every user (mode 0666)'],
    ['missing', -1, 'cannot read approval.webhook.secretFile'],
  ])('refuses a %s secret file at load', async (_what, mode, message) => {
    const secret = secretFile();
    try {
      if (mode >= 0) chmodSync(secret.file, mode);
      const file = mode >= 0 ? secret.file : path.join(path.dirname(secret.file), 'missing');
      await expect(compose({ url: 'http://127.0.0.1:9/hook', secretFile: file })).rejects.toThrow(message);
    } finally {
      secret.remove();
    }
  });

  it('refuses a short secret, a non-http URL, a URL with credentials and an unknown key', async () => {
    const short = secretFile('short');
    const good = secretFile();
    try {
      await expect(compose({ url: 'http://127.0.0.1:9/', secretFile: short.file })).rejects.toThrow('at least 16 characters');
      await expect(compose({ url: 'file:///etc/passwd', secretFile: good.file })).rejects.toThrow('webhook.url must be an http or https URL');
      await expect(compose({ url: 'https://u:p@example.test/', secretFile: good.file })).rejects.toThrow('must not carry a user name or password');
      await expect(compose({ url: 'https://example.test/', secretFile: good.file, retries: 3 })).rejects.toThrow('retries is not a known key');
    } finally {
      short.remove();
      good.remove();
    }
  });

  it('a config file names the secret file relative to itself, and checks the section', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-webhook-cfg-'));
    try {
      const source = path.join(dir, 'dsh.yaml');
      writeFileSync(source, '');
      const config = validateConfig({ approval: { answerers: ['webhook'], webhook: { url: 'https://hooks.example/approve', secretFile: 'hook.secret' } } }, source);
      expect(config.approval?.webhook?.secretFile).toBe(path.join(dir, 'hook.secret'));
      expect(() => validateConfig({ approval: { webhook: { url: 'ftp://x', secretFile: 's' } } }, source)).toThrow('approval.webhook: url must be an http or https URL');
      expect(() => validateConfig({ approval: { answerers: 'webhook' } }, source)).toThrow('approval.answerers: expected a list of strings');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
