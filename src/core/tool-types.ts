// The argument and value types of tools by name, for typed `call()`s. Empty
// here: the built-in tools add theirs (src/tools/builtin-tool-values.ts, by
// declaration merging), so the host names no tool and imports none.

/** Result value types by tool name (augmented by the tool packages). */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ToolValueTypes {}

/** Argument types by tool name (augmented by the tool packages). */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ToolArgTypes {}

/** The result value type of the tool named `N`: typed for the tools that say theirs, `unknown` for any other name. */
export type ToolValue<N extends string> = N extends keyof ToolValueTypes ? ToolValueTypes[N] : unknown;

/** The argument type of the tool named `N`: typed for the tools that say theirs, `unknown` for any other name. */
export type ToolArgs<N extends string> = N extends keyof ToolArgTypes ? ToolArgTypes[N] : unknown;
