import { IsBoolean, IsIn, IsOptional, IsString, JSONSchema, Matches, ValidateBy } from '../../core/arg-decorators.js';
import { invalidMilliseconds, NOT_A_COMMAND } from '../../core/command-argument-rules.js';

const NON_BLANK = /\S/;

/** A finite number of milliseconds, at least 1: the executors' rule, with its message (core/command-argument-rules.ts). */
function IsMilliseconds(field: string): PropertyDecorator {
  return ValidateBy({
    name: 'isMilliseconds',
    validator: {
      validate: (value: unknown) => invalidMilliseconds(field, value) === undefined,
      defaultMessage: (args) => invalidMilliseconds(field, args?.value) ?? '',
    },
  });
}

const ESCALATION_MODES = ['workspace-write', 'danger-full-access'] as const;
type EscalationMode = (typeof ESCALATION_MODES)[number];

/** Arguments of the one-shot `bash` tool. */
export class BashArgs {
  @JSONSchema({ description: 'The bash command line to run (bash -c).' })
  @IsString({ message: NOT_A_COMMAND })
  @Matches(NON_BLANK, { message: NOT_A_COMMAND })
  command!: string;

  @JSONSchema({ description: 'A 5-10 word active-voice summary of what the command does (display only).' })
  @IsString({ message: 'invalid description: expected a non-empty string' })
  @Matches(NON_BLANK, { message: 'invalid description: expected a non-empty string' })
  description!: string;

  @JSONSchema({ description: 'Timeout in milliseconds (default 120000, capped at 600000).' })
  @IsOptional()
  @IsMilliseconds('timeoutMs')
  timeoutMs?: number;

  @JSONSchema({ description: "Working directory; relative paths resolve against the session's directory." })
  @IsOptional()
  @IsString({ message: 'invalid workdir: expected a string' })
  workdir?: string;

  @JSONSchema({ description: 'Run as a background task and return its id at once; read it with task_output.' })
  @IsOptional()
  @IsBoolean({ message: 'invalid run_in_background: expected a boolean' })
  run_in_background?: boolean;

  @JSONSchema({
    description: 'Ask the user to run this one call in a wider sandbox mode (requires justification).',
    enum: [...ESCALATION_MODES],
  })
  @IsOptional()
  @IsIn([...ESCALATION_MODES], { message: 'invalid sandbox_permissions: expected "workspace-write" or "danger-full-access"' })
  sandbox_permissions?: EscalationMode;

  @JSONSchema({ description: 'One sentence telling the user why the wider sandbox mode is needed.' })
  @IsOptional()
  @IsString({ message: 'invalid justification: expected a non-empty sentence' })
  @Matches(NON_BLANK, { message: 'invalid justification: expected a non-empty sentence' })
  justification?: string;
}
