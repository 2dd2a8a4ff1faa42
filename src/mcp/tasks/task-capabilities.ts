import type { ClientCapabilities } from '@modelcontextprotocol/server';

// No value from the MCP SDK here: the stdio server's early initialize answer
// reads these before the SDK has loaded (see early-initialize.ts).

/** The server's `tasks` capability: list, cancel, and task-augmented `tools/call`. */
export const SERVER_TASK_CAPABILITIES = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

/** The capabilities to add to the initialize result: tasks only for a client that declared them, when tasks exist. */
export function taskCapabilitiesFor(client: ClientCapabilities | undefined, hasTaskRuntime: boolean): { tasks?: typeof SERVER_TASK_CAPABILITIES } {
  return hasTaskRuntime && clientDeclaresTasks(client) ? { tasks: SERVER_TASK_CAPABILITIES } : {};
}

export function clientDeclaresTasks(client: ClientCapabilities | undefined): boolean {
  const tasks = (client as { tasks?: unknown } | undefined)?.tasks;
  return typeof tasks === 'object' && tasks !== null;
}
