import type { JsonSchema } from '../../core/tool-contract.js';

/** JSON Schemas of the task tools' result values, sent as MCP `structuredContent`. Later keys are not forbidden. */

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
      properties: { exitCode: { type: ['integer', 'null'] }, signal: { type: ['string', 'null'] }, error: { type: 'string' } },
    },
  },
  required: ['id', 'kind', 'label', 'status', 'startedAt'],
};

export const TASK_OUTPUT_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'task_output' },
    taskId: { type: 'string' },
    status: STATUS,
    detail: { type: 'string' },
    output: { type: 'string', description: 'The new output exactly as read (empty when there was none).' },
    lost: { type: 'boolean', description: 'True when part of this output was dropped from memory.' },
    spillPaths: { type: 'array', items: { type: 'string' } },
  },
  required: ['kind', 'taskId', 'status', 'output', 'lost', 'spillPaths'],
});

export const TASK_LIST_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'task_list' },
    tasks: { type: 'array', items: SNAPSHOT },
  },
  required: ['kind', 'tasks'],
});

export const TASK_KILL_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    kind: { type: 'string', const: 'task_kill' },
    taskId: { type: 'string' },
    alreadyFinished: { type: 'boolean', description: 'True when the task had ended before this call: nothing was killed.' },
    status: STATUS,
    detail: { type: 'string' },
  },
  required: ['kind', 'taskId', 'alreadyFinished', 'status'],
});
