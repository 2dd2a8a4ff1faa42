// The TypeScript SDK 1.x client against the built server (issue 22, "Test with the clients themselves").
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'TypeScript SDK 1.32 (@modelcontextprotocol/sdk)',
  driver: 'sdk1',
  packageName: '@modelcontextprotocol/sdk',
  node: 20,
  transports: ['stdio', 'http'],
  modernEra: false,
  listShape: 'full',
  progress: 'resets-timeout',
  cancel: 'notifies',
  elicitation: true,
  session: true,
});
