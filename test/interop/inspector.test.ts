// The Inspector CLI 2.x (Node 22) against the built server, both eras (issue 22, "Test with the clients themselves").
// One CLI process per request: no session to keep, so no background read, cancel or expiry case.
import { describeClient } from './support/describe-client.js';

describeClient({
  title: 'Inspector CLI 2.12 (@modelcontextprotocol/inspector)',
  driver: 'inspector',
  packageName: '@modelcontextprotocol/inspector',
  node: 22,
  transports: ['stdio', 'http'],
  modernEra: true,
  listShape: 'full',
  progress: 'none',
  cancel: false,
  elicitation: false,
  session: false,
  strictLint: true,
});
