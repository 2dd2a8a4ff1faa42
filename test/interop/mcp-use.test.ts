// mcp-use 1.x against the built server (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'mcp-use 1.34 (mcp-use)',
  driver: 'mcp-use',
  packageName: 'mcp-use',
  node: 20,
  transports: ['stdio', 'http'],
  modernEra: false,
  listShape: 'full',
  progress: 'resets-timeout',
  cancel: 'notifies',
  elicitation: true,
  session: true,
});
