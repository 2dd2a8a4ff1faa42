import { injectFromBase } from 'inversify';
import type { ToolClass } from './contributions.js';
import { Tool, getToolMeta } from './tool.decorator.js';

/** What MCP clients accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Throws `invalid tool name …` unless `name` is 1-64 letters, digits, `_` or `-`. */
export function checkToolName(name: unknown, what: string): string {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new Error(`invalid ${what} tool name ${JSON.stringify(name)}: expected 1-64 letters, digits, _ or -`);
  }
  return name;
}

/**
 * `base` under another tool name: a subclass with the same constructor
 * injections and metadata but `name`, so one host can mount a tool class
 * twice or beside another tool of the same default name. `base` itself
 * when the name is already its own.
 */
export function renamedTool(base: ToolClass, name: string): ToolClass {
  const meta = getToolMeta(base);
  if (!meta) throw new Error(`renamedTool: ${base.name} is not decorated with @Tool`);
  if (meta.name === name) return base;
  const renamed = class extends base {};
  Object.defineProperty(renamed, 'name', { value: `${base.name}(${name})` });
  injectFromBase({ extendConstructorArguments: true, extendProperties: true })(renamed);
  Tool({ ...meta, name })(renamed);
  return renamed;
}
