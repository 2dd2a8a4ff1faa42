// TypeScript SDK 1.x (`@modelcontextprotocol/sdk`): the raw result is what a host built on it hands on.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { joinText, readConfig, runScript } from './script.mjs';

async function makeClient(config) {
  const client = new Client({ name: 'interop-sdk1', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: {} };
  });
  const transport =
    config.transport === 'stdio'
      ? new StdioClientTransport({ command: config.server.command, args: config.server.args, env: config.server.env, stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { authorization: `Bearer ${config.token}` } } });
  return {
    async connect() {
      await client.connect(transport);
      return { protocolVersion: transport.protocolVersion ?? null, server: client.getServerVersion()?.name };
    },
    async listTools() {
      return (await client.listTools()).tools;
    },
    async call(name, args, options = {}) {
      const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
        signal: options.signal,
        ...(options.timeoutMs ? { timeout: options.timeoutMs, resetTimeoutOnProgress: true } : {}),
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      });
      return { text: joinText(result.content), structured: result.structuredContent ?? null, isError: result.isError ?? false, asked: asked.splice(0) };
    },
    close: () => client.close(),
  };
}

await runScript(makeClient, readConfig());
