import type { JsonSchema } from '../../core/tool-contract.js';

/**
 * JSON Schema of the persistent `bash` result value (`PersistentBashValue`),
 * sent as MCP `structuredContent`. Later keys are not forbidden.
 */
export const PERSISTENT_BASH_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'foreground' },
    shell: { type: 'string', const: 'persistent' },
    output: { type: 'string', description: 'The output as shown (after clipping), without notices.' },
    exitCode: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    timedOut: { type: 'boolean' },
    timeoutMs: { type: 'number' },
    waitingForInput: { type: 'boolean' },
    deliveredAsInput: { type: 'boolean' },
    shellExited: { type: 'boolean' },
    shellReset: { type: 'boolean' },
    clippedChars: { type: 'integer' },
    lostPrefix: { type: 'boolean' },
    durationMs: { type: 'number' },
  },
  required: ['kind', 'shell', 'output', 'exitCode', 'timedOut', 'shellExited', 'shellReset'],
});
