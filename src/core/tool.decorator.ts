import type { ToolMeta } from './tool-contract.js';

/**
 * What `@Tool` takes: `requires` and `optional` only for tokens the
 * constructor does not inject (the host reads its `@inject`s, and what the
 * providers bound under them inject, itself).
 */
type ToolOptions = Omit<ToolMeta, 'requires'> & { readonly requires?: ToolMeta['requires'] };

const TOOL_META = Symbol.for('dsh.tool.meta');

/**
 * Marks a class as a model-facing tool. It records metadata only: a plugin
 * module still binds the class (see `bindTool`), so reading a module shows
 * every binding. It does not apply Inversify's `@injectable()` (Inversify 7
 * builds a class from its `@inject` parameters without it), so adding
 * `@injectable()` yourself is allowed and changes nothing.
 */
export function Tool(meta: ToolOptions): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(TOOL_META, Object.freeze({ requires: [], optional: [], ...meta }), target);
  };
}

export function getToolMeta(target: unknown): ToolMeta | undefined {
  if (typeof target !== 'function') return undefined;
  return Reflect.getOwnMetadata(TOOL_META, target) as ToolMeta | undefined;
}
