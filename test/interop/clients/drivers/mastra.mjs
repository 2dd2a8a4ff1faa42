// @mastra/mcp 2.0 (Node 22): Mastra tools; the model sees toModelOutput(execute()).
// Era "modern" pins 2026-07-28 (protocolVersion), "legacy" pins the initialize handshake.
import { MCPClient } from '@mastra/mcp';
import { readConfig, runScript } from './script.mjs';

function modelText(output) {
  if (output.type === 'text') return output.value;
  return JSON.stringify(output.value);
}

async function makeClient(config) {
  const asked = [];
  const common = {
    protocolVersion: config.era === 'modern' ? '2026-07-28' : 'legacy',
    enableProgressTracking: true,
    inputRequests: async ({ params }) => {
      asked.push(params.message);
      return { action: 'accept', content: {} };
    },
  };
  const server =
    config.transport === 'stdio'
      ? { ...common, command: config.server.command, args: config.server.args, env: config.server.env }
      : { ...common, url: new URL(config.url), requestInit: { headers: { authorization: `Bearer ${config.token}` } } };
  const mcp = new MCPClient({ id: `interop-${process.pid}`, servers: { dsh: server } });
  const progress = { listener: null };
  let tools = {};
  let calls = 0;
  return {
    async connect() {
      tools = await mcp.listTools();
      await mcp.progress.onUpdate('dsh', (update) => progress.listener?.(update));
      return {};
    },
    async listTools() {
      const definitions = await mcp.listToolDefinitions();
      return Object.values(definitions.dsh ?? definitions).map((entry) => entry.definition ?? entry);
    },
    async call(name, args, options = {}) {
      calls += 1;
      const tool = tools[`dsh_${name}`];
      progress.listener = options.onProgress ?? null;
      try {
        const output = await tool.execute(args, { runId: `run-${process.pid}-${calls}`, abortSignal: options.signal });
        const forModel = tool.toModelOutput ? await tool.toModelOutput(output) : { type: 'json', value: output };
        return { text: modelText(forModel), modelOutputType: forModel.type, asked: asked.splice(0) };
      } catch (error) {
        // isError results throw a MastraError (onToolError 'throw'); an agent hands its text to the model.
        if (error?.id !== 'MCP_CLIENT_TOOL_EXECUTION_FAILED') throw error;
        return { text: String(error.message), thrown: error.id, asked: asked.splice(0) };
      } finally {
        progress.listener = null;
      }
    },
    close: () => mcp.disconnect(),
  };
}

await runScript(makeClient, readConfig());
