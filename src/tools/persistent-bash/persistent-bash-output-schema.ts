import type { JsonSchema } from '../../core/tool-contract.js';
import { RESULT_TEXT } from '../../core/result-text-schema.js';

/**
 * JSON Schema of the persistent `bash` result as MCP sends it
 * (`structuredContent`): `text`, the whole model-visible result, and the
 * value's fields (`PersistentBashValue`) without `output`, which the text
 * already shows. A field that does not apply is absent, never null. Later
 * keys are not forbidden.
 */
export const PERSISTENT_BASH_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'foreground' },
    shell: { type: 'string', const: 'persistent' },
    text: RESULT_TEXT,
    exitCode: { type: 'integer', description: "The command's status (a dead shell's exit code); absent when unknown: timeout, waiting for input, signal." },
    signal: { type: 'string', description: 'The signal that killed the shell; absent otherwise.' },
    timedOut: { type: 'boolean' },
    timeoutMs: { type: 'number' },
    waitingForInput: { type: 'boolean' },
    deliveredAsInput: { type: 'boolean' },
    shellExited: { type: 'boolean' },
    frameLost: { type: 'boolean' },
    shellReset: { type: 'boolean' },
    clippedChars: { type: 'integer' },
    lostPrefix: { type: 'boolean' },
    durationMs: { type: 'number' },
  },
  required: ['kind', 'shell', 'text', 'timedOut', 'shellExited', 'shellReset'],
});
