import type { CallToolResult, InputRequiredResult, ListToolsResult, Server, ServerContext } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import { toMcpTool } from './call-result.js';
import type { CallRequest } from './call-runner.js';

/**
 * Lists the host's tools (as `shape` adjusts them for the era) and routes
 * each `tools/call` to `call`. Params were checked on the wire already; the
 * handler only reads them.
 */
export function registerToolHandlers(
  server: Server,
  host: DshHost,
  call: (request: CallRequest) => Promise<CallToolResult | InputRequiredResult>,
  shape: (tool: ListToolsResult['tools'][number]) => ListToolsResult['tools'][number] = (tool) => tool,
): void {
  server.setRequestHandler('tools/list', () => ({ tools: host.tools().map((tool) => shape(toMcpTool(tool) as ListToolsResult['tools'][number])) }));
  server.setRequestHandler('tools/call', (request, ctx: ServerContext) => {
    const { name, arguments: args, _meta, task } = request.params as typeof request.params & { task?: unknown };
    const progressToken = _meta?.progressToken;
    return call({ name, args: args ?? {}, ctx, ...(progressToken !== undefined ? { progressToken } : {}), ...(task !== undefined ? { task } : {}) });
  });
}
