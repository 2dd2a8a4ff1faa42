import { IsBoolean, IsNotEmpty, IsNumber, IsOptional, NoArguments, IsPositive, IsString, JSONSchema, type ValidationArguments } from '../../core/arg-decorators.js';
import { describeValue } from '../../core/describe-value.js';

/** `task_output`'s wait when `timeout_ms` is absent. */
export const DEFAULT_WAIT_MS = 30_000;
/** Longest `task_output` wait; larger `timeout_ms` values are clamped to it. */
export const MAX_WAIT_MS = 600_000;

const TASK_ID_MESSAGE = 'invalid task_id: expected a non-empty string';
const WAIT_MESSAGE = (args: ValidationArguments): string => `invalid wait: expected a boolean, got ${describeValue(args.value)}`;
const TIMEOUT_MESSAGE = (args: ValidationArguments): string =>
  `invalid timeout_ms: expected a positive number, got ${describeValue(args.value)}`;
const REASON_MESSAGE = 'invalid reason: expected a string';

export class TaskOutputArgs {
  @JSONSchema({ description: 'Id of the background task, e.g. "bash-1".' })
  @IsString({ message: TASK_ID_MESSAGE })
  @IsNotEmpty({ message: TASK_ID_MESSAGE })
  task_id!: string;

  @JSONSchema({
    description:
      'Block until the task finishes or timeout_ms passes (the task keeps running at timeout). Default false: return at once.',
  })
  @IsOptional()
  @IsBoolean({ message: WAIT_MESSAGE })
  wait?: boolean;

  @JSONSchema({
    description: `With wait: true, the longest wait in milliseconds (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS}).`,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: TIMEOUT_MESSAGE })
  @IsPositive({ message: TIMEOUT_MESSAGE })
  timeout_ms?: number;
}

/** `task_list` takes no arguments. */
@NoArguments()
export class TaskListArgs {}

export class TaskKillArgs {
  @JSONSchema({ description: 'Id of the background task to stop, e.g. "bash-1".' })
  @IsString({ message: TASK_ID_MESSAGE })
  @IsNotEmpty({ message: TASK_ID_MESSAGE })
  task_id!: string;

  @JSONSchema({ description: 'Why the task is no longer needed (optional, for the record).' })
  @IsOptional()
  @IsString({ message: REASON_MESSAGE })
  reason?: string;
}
