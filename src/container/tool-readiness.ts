import type { Container, ServiceIdentifier } from 'inversify';
import { readContributions } from '../core/contribution-collector.js';
import { Unavailable } from '../core/contributions.js';
import { tokenName } from '../core/token-name.js';
import type { ToolMeta } from '../core/tool-contract.js';

/** Whether a tool uses (requires or optionally takes) any of `tokens`: a load or unload of them rebuilds it. */
export function dependsOn(meta: ToolMeta, tokens: ReadonlySet<ServiceIdentifier>): boolean {
  return [...meta.requires, ...(meta.optional ?? [])].some((token) => tokens.has(token));
}

/** Names of the required tokens not bound, each with the reason a plugin recorded for it (`bindUnavailable`). */
export function missingTokens(container: Container, meta: ToolMeta): string[] {
  const reasons = readContributions(container, Unavailable);
  return meta.requires
    .filter((token) => !container.isBound(token))
    .map((token) => {
      const why = reasons.find((entry) => entry.token === token)?.reason;
      return why === undefined ? tokenName(token) : `${tokenName(token)} (${why})`;
    });
}
