// The TypeScript SDK 2.x client against the built server, both eras (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'TypeScript SDK 2.4 (@modelcontextprotocol/client)',
  driver: 'sdk2',
  packageName: '@modelcontextprotocol/client',
  node: 20,
  transports: ['stdio', 'http'],
  modernEra: true,
  listShape: 'full',
  progress: 'resets-timeout',
  cancel: 'notifies',
  elicitation: true,
  inputRequired: true,
  session: true,
});
