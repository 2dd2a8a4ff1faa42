// The self-approving client of issue 33 item 2: opens an MCP session to the
// server at argv[2] (era argv[3]: legacy or modern; bearer token argv[4], ''
// for none), declares form elicitation, asks to run argv[5] under
// danger-full-access and accepts its own approval. Prints one JSON line:
// {"outcome":"refused","message":…} or {"outcome":"result","text":…}.
const [url, era, token, command] = process.argv.slice(2);
const headers = token ? { authorization: `Bearer ${token}` } : {};
const args = { command, description: 'Needs the host', sandbox_permissions: 'danger-full-access', justification: 'the workspace is read-only' };

async function legacy() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const client = new Client({ name: 'inner', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    return await client.callTool({ name: 'bash', arguments: args });
  } finally {
    await client.close();
  }
}

async function modern() {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'inner', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    return await client.callTool({ name: 'bash', arguments: args });
  } finally {
    await client.close();
  }
}

try {
  const result = await (era === 'modern' ? modern() : legacy());
  console.log(JSON.stringify({ outcome: 'result', text: result.content.map((block) => block.text).join('') }));
} catch (error) {
  console.log(JSON.stringify({ outcome: 'refused', message: String(error?.message ?? error) }));
}
