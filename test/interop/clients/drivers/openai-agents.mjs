// @openai/agents: its MCP server classes (no OpenAI key needed) and the function
// tool the agent would hand the model; its output is what the model sees.
// The "structured" call mode flips useStructuredContent (the model then gets the JSON only).
import { MCPServerStdio, MCPServerStreamableHttp, mcpToFunctionTool, RunContext } from '@openai/agents';
import { readConfig, runScript } from './script.mjs';

function textOf(output) {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(textOf).join('\n');
  return output?.text ?? JSON.stringify(output);
}

async function makeClient(config) {
  // Its default 5 s for connect and list is tight for a server starting on a busy machine.
  const common = { name: 'dsh', clientSessionTimeoutSeconds: 30 };
  const server =
    config.transport === 'stdio'
      ? new MCPServerStdio({ ...common, command: config.server.command, args: config.server.args, env: config.server.env })
      : new MCPServerStreamableHttp({ ...common, url: config.url, requestInit: { headers: { authorization: `Bearer ${config.token}` } } });
  let tools = [];
  let calls = 0;
  return {
    async connect() {
      await server.connect();
      return {};
    },
    async listTools() {
      tools = await server.listTools();
      return tools;
    },
    async call(name, args, options = {}) {
      if (tools.length === 0) tools = await server.listTools();
      // The agent's default error text replaces the cause; keep the cause aside for the report.
      let cause;
      const tool = mcpToFunctionTool(tools.find((candidate) => candidate.name === name), server, false, {
        errorFunction: ({ error }) => {
          cause = String(error?.message ?? error);
          return 'An error occurred while running the tool. Please try again.';
        },
      });
      server.useStructuredContent = options.structuredMode === true;
      calls += 1;
      const output = await tool.invoke(new RunContext(), JSON.stringify(args), {
        toolCall: { type: 'function_call', callId: `call-${calls}`, name, arguments: JSON.stringify(args) },
        signal: options.signal,
      });
      return { text: textOf(output), ...(cause ? { cause } : {}), outputType: typeof output === 'string' ? 'string' : Array.isArray(output) ? 'array' : output?.type };
    },
    close: () => server.close(),
  };
}

await runScript(makeClient, readConfig());
