// The AI SDK's MCP client (Node 22) against the built server (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'AI SDK MCP 2.0 (@ai-sdk/mcp)',
  driver: 'ai-sdk',
  packageName: '@ai-sdk/mcp',
  node: 22,
  transports: ['stdio', 'http'],
  modernEra: false,
  listShape: 'full',
  progress: 'none',
  cancel: 'stream-only',
  elicitation: true,
  inputRequired: true,
  discoversModernOver: ['http'],
  session: true,
});
