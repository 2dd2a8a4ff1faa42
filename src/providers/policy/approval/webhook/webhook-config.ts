import { describeValue } from '../../../../core/describe-value.js';
import { mergeConfig } from '../../../../core/config-merge.js';
import { MAX_TIMER_MS } from '../../../../core/timer.js';

/** `approval.webhook`: where approvals are POSTed, the HMAC secret's file, and how long one exchange may take. */
export interface WebhookConfig {
  /** An `http:` or `https:` URL, without user name or password. */
  readonly url: string;
  /** The file holding the shared HMAC secret (checked like `--token-file`). */
  readonly secretFile: string;
  /** One POST (connect, answer, body) within this long, else the approval `failed`. Default 10000. */
  readonly timeoutMs: number;
}

/** What a config gives: `timeoutMs` may be left out. */
export type WebhookOptions = Omit<WebhookConfig, 'timeoutMs'> & { readonly timeoutMs?: number };

const DEFAULTS = { url: undefined, secretFile: undefined, timeoutMs: 10_000 };

function fail(key: string, problem: string): never {
  throw new Error(`invalid approval config: webhook.${key} ${problem}`);
}

/** Checks `approval.webhook`; throws `invalid approval config: webhook.<key> …`. */
export function resolveWebhookConfig(partial: unknown): WebhookConfig {
  const merged = mergeConfig('approval.webhook', DEFAULTS, partial);
  const { url, secretFile, timeoutMs } = merged;
  if (typeof url !== 'string' || url === '') fail('url', `must be an http or https URL, got ${describeValue(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail('url', `must be an http or https URL, got ${describeValue(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail('url', `must be an http or https URL, got ${describeValue(url)}`);
  if (parsed.username !== '' || parsed.password !== '') fail('url', 'must not carry a user name or password (the secret file signs the requests)');
  if (typeof secretFile !== 'string' || secretFile === '') fail('secretFile', `must be a file path, got ${describeValue(secretFile)}`);
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
    fail('timeoutMs', `must be an integer from 1 to ${MAX_TIMER_MS}, got ${describeValue(timeoutMs)}`);
  }
  return Object.freeze({ url, secretFile, timeoutMs });
}

/** `approval.answerers`: answerer names, each at most once. Throws `invalid approval config: answerers …`. */
export function resolveAnswererOrder(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string' && name.trim() !== '')) {
    throw new Error(`invalid approval config: answerers must be a list of answerer names (mcp-elicitation, webhook, …), got ${describeValue(value)}`);
  }
  const twice = value.find((name, index) => value.indexOf(name) !== index);
  if (twice !== undefined) throw new Error(`invalid approval config: answerers names ${describeValue(twice)} twice`);
  return Object.freeze([...value] as string[]);
}
