import type { ServiceIdentifier } from 'inversify';
import { configError, mergeConfig } from '../../core/config-merge.js';
import { describeValue } from '../../core/describe-value.js';

const ON_TIMEOUT_ACTIONS = ['promote', 'kill'] as const;
type OnTimeoutAction = (typeof ON_TIMEOUT_ACTIONS)[number];

export interface BashToolConfig {
  /** When false, `run_in_background` leaves the schema and a forced call is refused. */
  readonly enableRunInBackground: boolean;
  /**
   * At the default timeout (the model gave no `timeoutMs`): `promote` moves a
   * still-running command to a background task when the session's task
   * runtime admits one; `kill` always stops it.
   */
  readonly onTimeout: OnTimeoutAction;
  /**
   * With `promote`: a command still running this long after its start is
   * moved to a background task already (if the task runtime admits one),
   * before the 60 s most MCP clients wait for a call (docs/interop.md); 0:
   * only at the timeout. Ignored when not below the timeout.
   */
  readonly promoteAfterMs: number;
  /**
   * When the caller cancels a call that could be promoted (the default
   * timeout, `onTimeout: promote`): `kill` stops the command, `promote` moves
   * it to a background task as the promotion time would. A call's own
   * `_meta["dsh-tools/onCancel"]` (`promote` or `kill`) overrides it.
   */
  readonly onCancel: OnTimeoutAction;
}

/** The request `_meta` key by which a client asks what a cancel of the call does: `promote` or `kill`. */
export const ON_CANCEL_META = 'dsh-tools/onCancel';

/** Before the 60 s at which eight of ten tested client families give up on a call (docs/interop.md). */
export const DEFAULT_PROMOTE_AFTER_MS = 50_000;

const DEFAULT_BASH_TOOL_CONFIG: BashToolConfig = Object.freeze({
  enableRunInBackground: true,
  onTimeout: 'promote',
  promoteAfterMs: DEFAULT_PROMOTE_AFTER_MS,
  onCancel: 'kill',
});

export const BashToolConfig: ServiceIdentifier<Partial<BashToolConfig>> = Symbol.for('dsh.BashToolConfig');

/**
 * Fills defaults and checks values, so a misspelt key or a non-boolean fails
 * at composition rather than silently keeping the default.
 * Throws `invalid bash tool config: <key> ...`.
 */
export function resolveBashToolConfig(config: Partial<BashToolConfig> | undefined): BashToolConfig {
  const merged = mergeConfig('bash tool', DEFAULT_BASH_TOOL_CONFIG, config);
  if (typeof merged.enableRunInBackground !== 'boolean') {
    throw configError('bash tool', 'enableRunInBackground', `must be true or false, got ${describeValue(merged.enableRunInBackground)}`);
  }
  const onTimeout = merged.onTimeout as OnTimeoutAction;
  if (!ON_TIMEOUT_ACTIONS.includes(onTimeout)) {
    throw configError('bash tool', 'onTimeout', `must be "promote" or "kill", got ${describeValue(onTimeout)}`);
  }
  const promoteAfterMs = merged.promoteAfterMs as number;
  if (!Number.isSafeInteger(promoteAfterMs) || promoteAfterMs < 0) {
    throw configError('bash tool', 'promoteAfterMs', `must be 0 or a positive number of milliseconds, got ${describeValue(promoteAfterMs)}`);
  }
  const onCancel = merged.onCancel as OnTimeoutAction;
  if (!ON_TIMEOUT_ACTIONS.includes(onCancel)) {
    throw configError('bash tool', 'onCancel', `must be "promote" or "kill", got ${describeValue(onCancel)}`);
  }
  return Object.freeze({ enableRunInBackground: merged.enableRunInBackground, onTimeout, promoteAfterMs, onCancel });
}

/** The `tool:bash` prompt section text (docs/contract.md §4.1), shared by the one-shot and persistent tools. */
export const BASH_PROMPT_TEXT =
  'Check the [exit code: N] marker on every bash result; investigate failures before moving on.';
