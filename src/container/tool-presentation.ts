import type { CallPresentation, ResultPresentation, ToolInstance, ToolResult } from '../core/tool-contract.js';

/** The cards a front end draws for one call: before it runs, and once it finished. */
export interface ToolCards {
  readonly call?: CallPresentation;
  readonly result?: ResultPresentation;
}

/**
 * Asks a tool for its cards. Presenters are pure and must not throw; one that
 * does draws no card rather than failing the call it describes.
 */
export function toolCards(tool: ToolInstance<object> | undefined, args: unknown, result?: ToolResult): ToolCards {
  const call = attempt(() => tool?.presentCall?.(args));
  const done = result === undefined ? undefined : attempt(() => tool?.presentResult?.(result));
  return { ...(call ? { call } : {}), ...(done ? { result: done } : {}) };
}

function attempt<T>(draw: () => T | undefined): T | undefined {
  try {
    return draw();
  } catch {
    return undefined;
  }
}
