import { IsBoolean, IsOptional, IsString, JSONSchema, Matches, ValidateBy } from '../../core/arg-decorators.js';

const NON_BLANK = /\S/;

/** Bash strings cannot hold a NUL: the shell would run only the part before it. Checks strings only. */
function HasNoNul(message: string): PropertyDecorator {
  return ValidateBy({
    name: 'hasNoNul',
    validator: { validate: (value: unknown) => typeof value !== 'string' || !value.includes('\0'), defaultMessage: () => message },
  });
}

/** Arguments of the persistent `bash` tool. */
export class PersistentBashArgs {
  @JSONSchema({
    description:
      'The bash command to run in your persistent shell (multi-line, heredocs and quotes are fine). While an earlier command waits for input, this text is sent to it as one line of input instead (^C interrupts, ^D sends end-of-file).',
  })
  @IsString({ message: 'invalid command: expected a non-empty string' })
  @Matches(NON_BLANK, { message: 'invalid command: expected a non-empty string' })
  @HasNoNul('invalid command: contains a NUL character')
  command!: string;

  @JSONSchema({ description: 'A 5-10 word active-voice summary of what the command does (display only).' })
  @IsOptional()
  @IsString({ message: 'invalid description: expected a non-empty string' })
  @Matches(NON_BLANK, { message: 'invalid description: expected a non-empty string' })
  description?: string;

  @JSONSchema({
    description:
      'Discard the current shell (its cwd, variables, functions, jobs and any waiting command) and run this command in a fresh shell started in the workspace. Use it when the shell is unusable.',
  })
  @IsOptional()
  @IsBoolean({ message: 'invalid restart: expected a boolean' })
  restart?: boolean;
}
