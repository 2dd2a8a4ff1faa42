import type { ServerResponse } from 'node:http';
import type { DshHost } from '../../container/dsh-host.js';
import { contributionsOf } from '../../core/contribution-collector.js';
import { ReadinessCheck } from '../../providers/health/readiness-check.js';
import type { Logger } from '../../providers/logging/logger.js';
import { reply } from '../transport/http-replies.js';

/** Liveness: the process answers. */
export const HEALTH_PATH = '/healthz';
/** Readiness: the composition is loaded, every required provider answers, the server is not draining. */
export const READY_PATH = '/readyz';
const CHECK_TIMEOUT_MS = 5000;

/**
 * Answers `GET`/`HEAD` on the two health paths without a token: they tell
 * whether to send traffic, and nothing else (no version, no sessions, no
 * provider endpoints). Any other method gets 405.
 */
export async function answerHealth(
  pathname: string,
  method: string | undefined,
  res: ServerResponse,
  state: { readonly host: DshHost; readonly draining: () => boolean; readonly logger?: Logger },
): Promise<void> {
  const headers = { 'cache-control': 'no-store' };
  if (method !== 'GET' && method !== 'HEAD') return reply(res, 405, 'method not allowed: use GET', { ...headers, allow: 'GET, HEAD' });
  if (pathname === HEALTH_PATH) return reply(res, 200, 'ok', headers);
  const reasons = state.draining() ? ['draining: the server is shutting down'] : await notReadyReasons(state.host, state.logger);
  if (reasons.length === 0) return reply(res, 200, 'ready', headers);
  return reply(res, 503, `not ready: ${reasons.join('; ')}`, headers);
}

/** Why the host cannot take calls now; empty when it can. */
async function notReadyReasons(host: DshHost, logger?: Logger): Promise<string[]> {
  if (host.tools().length === 0) return ['no tool is active'];
  const collector = contributionsOf(ReadinessCheck);
  const checks = host.isBound(collector) ? host.get(collector)() : [];
  const answers = await Promise.all(checks.map((check) => bounded(check, logger)));
  return answers.filter((reason): reason is string => reason !== undefined);
}

async function bounded(check: ReadinessCheck, logger?: Logger): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${check.name}: no answer within ${CHECK_TIMEOUT_MS / 1000} s`), CHECK_TIMEOUT_MS);
  });
  try {
    const reason = await Promise.race([check.check().catch(() => `${check.name}: the check failed`), late]);
    if (reason !== undefined) logger?.debug(`readyz: ${check.name} not ready (${reason})`);
    return reason;
  } finally {
    clearTimeout(timer);
  }
}
