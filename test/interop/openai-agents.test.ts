// @openai/agents' MCP server classes against the built server, no OpenAI key (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'OpenAI Agents 0.20 (@openai/agents)',
  driver: 'openai-agents',
  packageName: '@openai/agents',
  node: 20,
  transports: ['stdio', 'http'],
  modernEra: false,
  listShape: 'full',
  progress: 'none',
  structuredMode: true,
  cancel: 'notifies',
  elicitation: false,
  session: true,
});
