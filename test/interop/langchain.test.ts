// @langchain/mcp-adapters against the built server (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'LangChain MCP adapters 1.1 (@langchain/mcp-adapters)',
  driver: 'langchain',
  packageName: '@langchain/mcp-adapters',
  node: 20,
  transports: ['stdio', 'http'],
  modernEra: false,
  listShape: 'names',
  progress: 'callback',
  cancel: 'notifies',
  elicitation: false,
  session: true,
});
