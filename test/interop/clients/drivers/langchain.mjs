// @langchain/mcp-adapters: tools become LangChain tools; the model sees the
// ToolMessage a tool call produces (content; the artifact stays aside).
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { readConfig, runScript } from './script.mjs';

/** The ToolMessage content as text, and the structuredContent LangChain keeps beside it in the same block. */
function modelView(message) {
  const content = message.content;
  if (typeof content === 'string') return { text: content, structured: null, contentShape: 'string' };
  const text = content.map((block) => block.text ?? '').join('\n');
  const structured = content.find((block) => block.structuredContent)?.structuredContent ?? null;
  return { text, structured, contentShape: 'blocks', modelChars: JSON.stringify(content).length };
}

async function makeClient(config) {
  const progress = { listener: null };
  const server =
    config.transport === 'stdio'
      ? { transport: 'stdio', command: config.server.command, args: config.server.args, env: config.server.env, restart: { enabled: false } }
      : { transport: 'http', url: config.url, headers: { authorization: `Bearer ${config.token}` }, automaticSSEFallback: false };
  const client = new MultiServerMCPClient({
    mcpServers: { dsh: server },
    throwOnLoadError: true,
    onProgress: (update) => progress.listener?.(update),
  });
  let tools = [];
  let calls = 0;
  return {
    async connect() {
      tools = await client.getTools();
      return {};
    },
    async listTools() {
      return tools.map((tool) => ({ name: tool.name.replace(/^.*__/, ''), description: tool.description }));
    },
    async call(name, args, options = {}) {
      const tool = tools.find((candidate) => candidate.name === name || candidate.name.endsWith(`__${name}`));
      progress.listener = options.onProgress ?? null;
      calls += 1;
      try {
        // A tool call (not bare args) returns the ToolMessage the model gets; no timeout: progress would not reset it.
        const message = await tool.invoke({ type: 'tool_call', id: `call-${calls}`, name: tool.name, args }, { signal: options.signal });
        return modelView(message);
      } catch (error) {
        // isError results throw ToolException; an agent loop hands its message to the model.
        if (error?.name !== 'ToolException') throw error;
        return { text: error.message, structured: null, thrown: 'ToolException' };
      } finally {
        progress.listener = null;
      }
    },
    close: () => client.close(),
  };
}

await runScript(makeClient, readConfig());
