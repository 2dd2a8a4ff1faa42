import type { Container, ServiceIdentifier } from 'inversify';
import { readContributions } from '../core/contribution-collector.js';
import { Unavailable } from '../core/contributions.js';
import { tokenName } from '../core/token-name.js';
import type { ToolMeta } from '../core/tool-contract.js';
import type { BindingGraph } from './binding-graph.js';

export interface PendingTool {
  readonly name: string;
  /** Names of the required tokens not bound yet. */
  readonly missing: string[];
  /** Set when all tokens were bound but the tool failed to construct (the plugin named). */
  readonly error?: string;
  /** The plugin that bound the tool. */
  readonly plugin?: string;
}

/**
 * Names of the required tokens not bound, each with the reason a plugin
 * recorded for it (`bindUnavailable`). Required are the tool's own, and what
 * their bound providers inject without `@optional()` (the planner's registry).
 */
export function missingTokens(container: Container, meta: ToolMeta, graph?: BindingGraph): string[] {
  const reasons = readContributions(container, Unavailable);
  const isBound = (token: ServiceIdentifier): boolean => container.isBound(token);
  const required = graph ? [...graph.required(meta.requires, isBound)] : meta.requires;
  return required
    .filter((token) => !isBound(token))
    .map((token) => {
      const why = reasons.find((entry) => entry.token === token)?.reason;
      return why === undefined ? tokenName(token) : `${tokenName(token)} (${why})`;
    });
}
