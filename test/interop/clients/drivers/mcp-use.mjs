// mcp-use 1.x: MCPClient sessions; its agent hands the model the LangChain tool
// its LangChainAdapter makes, whose output is the whole CallToolResult as JSON.
import { MCPClient } from 'mcp-use';
import { LangChainAdapter } from 'mcp-use/adapters';
import { readConfig, runScript } from './script.mjs';

async function makeClient(config) {
  const asked = [];
  const server =
    config.transport === 'stdio'
      ? { command: config.server.command, args: config.server.args, env: config.server.env }
      : { url: config.url, headers: { authorization: `Bearer ${config.token}` }, transport: 'http' };
  const client = MCPClient.fromDict(
    { mcpServers: { dsh: server } },
    {
      onElicitation: async (params) => {
        asked.push(params.message);
        return { action: 'accept', content: {} };
      },
    },
  );
  let session;
  let tools = [];
  return {
    async connect() {
      session = await client.createSession('dsh');
      tools = await new LangChainAdapter().createToolsFromConnectors([session.connector]);
      return {};
    },
    async listTools() {
      return session.connector.tools;
    },
    async call(name, args, options = {}) {
      if (options.signal || options.onProgress) {
        // Per-call options exist on the connector only; the agent's view is this result as JSON.
        const result = await session.connector.callTool(name, args, {
          signal: options.signal,
          ...(options.timeoutMs ? { timeout: options.timeoutMs, resetTimeoutOnProgress: true } : {}),
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        });
        return { text: JSON.stringify(result), structured: result.structuredContent ?? null, asked: asked.splice(0), via: 'connector' };
      }
      const text = await tools.find((tool) => tool.name === name).invoke(args);
      return { text, asked: asked.splice(0), via: 'agent tool' };
    },
    close: () => client.closeAllSessions(),
  };
}

await runScript(makeClient, readConfig());
