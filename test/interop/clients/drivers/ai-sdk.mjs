// @ai-sdk/mcp 2.0 (Node 22): the AI SDK tool set; the model sees toModelOutput(execute()).
// It probes with server/discover first and falls back to initialize (no pin option).
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { readConfig, runScript } from './script.mjs';

function modelText(output) {
  if (output.type === 'text') return output.value;
  if (output.type === 'content') return output.value.map((part) => part.text ?? '').join('\n');
  return JSON.stringify(output.value);
}

async function makeClient(config) {
  const asked = [];
  let client;
  let tools = {};
  let calls = 0;
  return {
    async connect() {
      const transport =
        config.transport === 'stdio'
          ? new Experimental_StdioMCPTransport({ command: config.server.command, args: config.server.args, env: config.server.env, stderr: 'ignore' })
          : { type: 'http', url: config.url, headers: { authorization: `Bearer ${config.token}` } };
      client = await createMCPClient({ transport, capabilities: { elicitation: {} } });
      client.onElicitationRequest(ElicitationRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: {} };
      });
      tools = await client.tools();
      return {};
    },
    async listTools() {
      return (await client.listTools()).tools;
    },
    async call(name, args, options = {}) {
      calls += 1;
      const tool = tools[name];
      const output = await tool.execute(args, { toolCallId: `call-${calls}`, messages: [], abortSignal: options.signal });
      const forModel = tool.toModelOutput ? await tool.toModelOutput({ toolCallId: `call-${calls}`, input: args, output }) : { type: 'json', value: output };
      return { text: modelText(forModel), structured: output?.structuredContent ?? null, modelOutputType: forModel.type, asked: asked.splice(0) };
    },
    close: () => client?.close() ?? Promise.resolve(),
  };
}

await runScript(makeClient, readConfig());
