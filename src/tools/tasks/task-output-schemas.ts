import type { JsonSchema } from '../../core/tool-contract.js';
import { RESULT_TEXT } from '../../core/result-text-schema.js';

/**
 * JSON Schemas of the task tools' results as MCP sends them
 * (`structuredContent`): `text`, the whole model-visible result, and the
 * value's fields without `output`, which the text already shows. A field
 * that does not apply is absent, never null. Later keys are not forbidden.
 */

const STATUS = { type: 'string', enum: ['running', 'stopping', 'completed', 'killed', 'failed'] };

const SNAPSHOT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string' },
    label: { type: 'string' },
    ownerId: { type: 'string' },
    status: STATUS,
    detail: { type: 'string', description: 'How it ended, e.g. "exit code: 3".' },
    startedAt: { type: 'number', description: 'Epoch milliseconds.' },
    endedAt: { type: 'number', description: 'Epoch milliseconds.' },
    outcome: {
      type: 'object',
      properties: {
        exitCode: { type: 'integer', description: 'Absent when it did not exit by itself.' },
        signal: { type: 'string', description: 'Absent when it exited.' },
        error: { type: 'string' },
      },
    },
  },
  required: ['id', 'kind', 'label', 'status', 'startedAt'],
};

export const TASK_OUTPUT_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'task_output' },
    text: RESULT_TEXT,
    taskId: { type: 'string' },
    status: STATUS,
    detail: { type: 'string' },
    lost: { type: 'boolean', description: 'True when part of this output was dropped from memory.' },
    spillPaths: { type: 'array', items: { type: 'string' }, description: 'The complete streams on disk (also offered as resource_link blocks).' },
  },
  required: ['kind', 'text', 'taskId', 'status', 'lost', 'spillPaths'],
});

export const TASK_LIST_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'task_list' },
    text: RESULT_TEXT,
    tasks: { type: 'array', items: SNAPSHOT },
  },
  required: ['kind', 'text', 'tasks'],
});

export const TASK_KILL_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'task_kill' },
    text: RESULT_TEXT,
    taskId: { type: 'string' },
    alreadyFinished: { type: 'boolean', description: 'True when the task had ended before this call: nothing was killed.' },
    status: STATUS,
    detail: { type: 'string' },
  },
  required: ['kind', 'text', 'taskId', 'alreadyFinished', 'status'],
});
