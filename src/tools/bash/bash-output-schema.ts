import type { JsonSchema } from '../../core/tool-contract.js';

/**
 * JSON Schema of the one-shot `bash` result value (`BashResultValue`), sent
 * as MCP `structuredContent`. Only `kind` is always present: `foreground`
 * carries the run's fields, `background` the task id. Other keys may be
 * added later, so the schema does not forbid them.
 */
export const BASH_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', description: '"foreground": the command ran (to its end, timeout or kill); "background": it started as a task.' },
    shell: { type: 'string', const: 'oneshot', description: 'Which bash ran it (foreground only): the persistent shell says "persistent".' },
    taskId: { type: 'string', description: 'The background task id (background only).' },
    stdout: { type: 'string', description: 'The in-memory tail of stdout.' },
    stderr: { type: 'string', description: 'The in-memory tail of stderr.' },
    exitCode: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    timedOut: { type: 'boolean' },
    aborted: { type: 'boolean' },
    timeoutMs: { type: 'number' },
    durationMs: { type: 'number' },
    stdoutTruncated: { type: 'boolean' },
    stderrTruncated: { type: 'boolean' },
    stdoutSpillPath: { type: 'string', description: 'The complete stdout on disk, when truncated.' },
    stderrSpillPath: { type: 'string', description: 'The complete stderr on disk, when truncated.' },
    sandboxDenied: { type: 'boolean' },
    sandboxMode: { type: 'string' },
  },
  required: ['kind'],
});
