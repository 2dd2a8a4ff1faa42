import type { Container } from 'inversify';
import { readContributions } from '../core/contribution-collector.js';
import { Unavailable } from '../core/contributions.js';
import { tokenName } from '../core/token-name.js';
import type { ToolMeta } from '../core/tool-contract.js';

export interface PendingTool {
  readonly name: string;
  /** Names of the required tokens not bound yet. */
  readonly missing: string[];
  /** Set when all tokens were bound but the tool failed to construct (the plugin named). */
  readonly error?: string;
  /** The plugin that bound the tool. */
  readonly plugin?: string;
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
