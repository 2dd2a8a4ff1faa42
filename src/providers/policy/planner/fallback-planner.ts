import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { CommandConfinement } from '../../exec/process/command-confinement.js';

/**
 * The plan of a request that reaches an executor or a terminal backend
 * without one (an embedder's tool calling the executor itself rather than
 * through the `CallPlanner`): the one decision such a request needs, the
 * confinement of the session's own mode and pinned workspace (undefined:
 * unconfined by decision). Backends ask it and apply the answer as they apply
 * a planned confinement; they decide nothing themselves. The sandbox module
 * binds it to its `Confinement` (whose `forSession` without a request is this
 * plan); without it such requests run unconfined. Throws — never answers
 * something wider — when the session cannot be confined (fail closed).
 */
export interface FallbackPlanner {
  forSession(session: SessionContext | undefined): CommandConfinement | undefined;
}

export const FallbackPlanner: ServiceIdentifier<FallbackPlanner> = Symbol.for('dsh.FallbackPlanner');
