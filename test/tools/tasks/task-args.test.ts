import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { validateArgs } from '../../../src/core/arg-validation.js';
import { argsSchema, argumentNames } from '../../../src/core/tool-schema.js';
import { TaskKillArgs, TaskListArgs, TaskOutputArgs } from '../../../src/tools/tasks/task-args.js';

const NAMES = new Map<Function, string>([
  [TaskOutputArgs, 'task_output'],
  [TaskKillArgs, 'task_kill'],
  [TaskListArgs, 'task_list'],
]);

/** The host's argument validation for `cls`, with the names its schema shows. */
function validate(cls: new () => object, raw: unknown): object {
  return validateArgs(cls, raw, { tool: NAMES.get(cls)!, names: argumentNames(argsSchema(cls)) });
}

/** Runs the host's argument pipeline; returns its error message, if any. */
async function firstError(cls: new () => object, raw: unknown): Promise<string | undefined> {
  try {
    validate(cls, raw);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('task tool arguments', () => {
  it('accept valid arguments', async () => {
    expect(await firstError(TaskOutputArgs, { task_id: 'bash-1', wait: true, timeout_ms: 500 })).toBeUndefined();
    expect(await firstError(TaskKillArgs, { task_id: 'bash-1', reason: 'done' })).toBeUndefined();
    expect(await firstError(TaskListArgs, {})).toBeUndefined();
    expect(await firstError(TaskListArgs, undefined)).toBeUndefined();
    expect(validate(TaskOutputArgs, { task_id: 'bash-1' })).toEqual({ task_id: 'bash-1' });
  });

  it('reject an unknown key, naming the valid ones', async () => {
    expect(await firstError(TaskOutputArgs, { task_id: 'bash-1', timeoutMs: 500 })).toBe(
      'unknown argument "timeoutMs" for task_output; valid arguments: task_id, wait, timeout_ms',
    );
    expect(await firstError(TaskKillArgs, { taskId: 'bash-1' })).toBe(
      'unknown argument "taskId" for task_kill; valid arguments: task_id, reason',
    );
    expect(await firstError(TaskListArgs, { anything: true })).toBe('unknown argument "anything" for task_list; valid arguments: (none)');
    expect(await firstError(TaskOutputArgs, JSON.parse('{"task_id":"bash-1","__proto__":{"polluted":1}}'))).toBe(
      'unknown argument "__proto__" for task_output; valid arguments: task_id, wait, timeout_ms',
    );
  });

  it.each([
    [{}, 'invalid task_id: expected a non-empty string'],
    [{ task_id: '' }, 'invalid task_id: expected a non-empty string'],
    [{ task_id: 5 }, 'invalid task_id: expected a non-empty string'],
    [{ task_id: 'bash-1', wait: 'true' }, 'invalid wait: expected a boolean, got "true"'],
    [{ task_id: 'bash-1', timeout_ms: '500' }, 'invalid timeout_ms: expected a positive number, got "500"'],
    [{ task_id: 'bash-1', timeout_ms: 0 }, 'invalid timeout_ms: expected a positive number, got 0'],
    [{ task_id: 'bash-1', timeout_ms: -3 }, 'invalid timeout_ms: expected a positive number, got -3'],
  ])('task_output rejects %j with a clear message', async (raw, message) => {
    expect(await firstError(TaskOutputArgs, raw)).toBe(message);
  });

  it('task_kill rejects a missing id or a non-string reason', async () => {
    expect(await firstError(TaskKillArgs, {})).toBe('invalid task_id: expected a non-empty string');
    expect(await firstError(TaskKillArgs, { task_id: 'bash-1', reason: 3 })).toBe('invalid reason: expected a string');
  });

  it('describe every field in the generated JSON schema', () => {
    const schemas = validationMetadatasToSchemas() as Record<string, { properties: Record<string, { description?: string }>; required?: string[] }>;
    const output = schemas.TaskOutputArgs!;
    expect(Object.keys(output.properties).sort()).toEqual(['task_id', 'timeout_ms', 'wait']);
    for (const property of Object.values(output.properties)) expect(property.description).toEqual(expect.any(String));
    expect(output.required).toEqual(['task_id']);
    expect(schemas.TaskKillArgs!.properties.reason!.description).toEqual(expect.any(String));
  });
});
