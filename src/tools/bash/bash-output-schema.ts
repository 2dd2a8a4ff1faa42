import type { JsonSchema } from '../../core/tool-contract.js';
import { RESULT_TEXT } from '../../core/result-text-schema.js';

/**
 * JSON Schema of the one-shot `bash` result as MCP sends it
 * (`structuredContent`): `text`, the whole model-visible result, and the
 * value's fields (`BashResultValue`) without the output streams the text
 * already shows. A field that does not apply is absent, never null. Only
 * `kind` and `text` are always present: `foreground` carries the run's
 * fields, `background` the task id. Other keys may be added later, so the
 * schema does not forbid them.
 */
export const BASH_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', description: '"foreground": the command ran (to its end, timeout or kill); "background": it started as a task.' },
    text: RESULT_TEXT,
    shell: { type: 'string', const: 'oneshot', description: 'Which bash ran it (foreground only): the persistent shell says "persistent".' },
    taskId: { type: 'string', description: 'The background task id (background only).' },
    exitCode: { type: 'integer', description: 'Absent when the command did not exit by itself (see signal).' },
    signal: { type: 'string', description: 'The signal that ended the command, e.g. "SIGTERM"; absent when it exited.' },
    timedOut: { type: 'boolean' },
    aborted: { type: 'boolean' },
    timeoutMs: { type: 'number' },
    durationMs: { type: 'number' },
    stdoutTruncated: { type: 'boolean', description: 'True when the text shows only part of stdout.' },
    stderrTruncated: { type: 'boolean', description: 'True when the text shows only part of stderr.' },
    stdoutSpillPath: { type: 'string', description: 'The complete stdout on disk, when truncated (also offered as a resource_link).' },
    stderrSpillPath: { type: 'string', description: 'The complete stderr on disk, when truncated (also offered as a resource_link).' },
    collapsedUpdates: { type: 'integer', description: 'Progress redraws left out of the text.' },
    leftoversKilled: { type: 'integer', description: 'Processes that outlived the command and were killed.' },
    limitsReached: {
      type: 'array',
      items: { type: 'object', properties: { kind: { type: 'string', enum: ['processes', 'memory'] }, limit: { type: 'string' } }, required: ['kind', 'limit'] },
    },
    sandboxDenied: { type: 'boolean' },
    sandboxMode: { type: 'string' },
  },
  required: ['kind', 'text'],
});
