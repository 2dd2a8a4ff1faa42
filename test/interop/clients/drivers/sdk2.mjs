// TypeScript SDK 2.x (`@modelcontextprotocol/client`): era "modern" pins 2026-07-28
// (versionNegotiation { pin }), era "legacy" keeps the default 2025 handshake.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { joinText, readConfig, runScript } from './script.mjs';

const MODERN = '2026-07-28';

async function makeClient(config) {
  const client = new Client(
    { name: 'interop-sdk2', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(config.era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
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
      return { protocolVersion: transport.protocolVersion ?? client.getNegotiatedProtocolVersion?.() ?? null, server: client.getServerVersion()?.name };
    },
    async listTools() {
      return (await client.listTools()).tools;
    },
    async call(name, args, options = {}) {
      const result = await client.callTool(
        { name, arguments: args },
        {
          signal: options.signal,
          ...(options.timeoutMs ? { timeout: options.timeoutMs, resetTimeoutOnProgress: true } : {}),
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        },
      );
      return { text: joinText(result.content), structured: result.structuredContent ?? null, isError: result.isError ?? false, asked: asked.splice(0) };
    },
    close: () => client.close(),
  };
}

await runScript(makeClient, readConfig());
