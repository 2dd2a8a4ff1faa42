// Mastra's MCP client (Node 22) against the built server, both eras (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'Mastra MCP 2.0 (@mastra/mcp)',
  driver: 'mastra',
  packageName: '@mastra/mcp',
  node: 22,
  transports: ['stdio', 'http'],
  modernEra: true,
  listShape: 'untitled',
  progress: 'callback',
  cancel: 'notifies',
  elicitation: true,
  inputRequired: true,
  session: true,
});
