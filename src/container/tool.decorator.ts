import { injectable } from 'inversify';
import type { ToolMeta } from './tool-contract.js';

const TOOL_META = Symbol.for('dsh.tool.meta');

/**
 * Marks an injectable class as a model-facing tool. It records metadata
 * only: a plugin module still binds the class (see `bindTool`), so reading a
 * module shows every binding.
 */
export function Tool(meta: ToolMeta): ClassDecorator {
  return (target) => {
    injectable()(target as never);
    Reflect.defineMetadata(TOOL_META, Object.freeze({ optional: [], ...meta }), target);
  };
}

export function getToolMeta(target: unknown): ToolMeta | undefined {
  if (typeof target !== 'function') return undefined;
  return Reflect.getOwnMetadata(TOOL_META, target) as ToolMeta | undefined;
}
