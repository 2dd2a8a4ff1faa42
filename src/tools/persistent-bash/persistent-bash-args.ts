import { IsOptional, IsString, Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

const NON_BLANK = /\S/;

/** Arguments of the persistent `bash` tool. */
export class PersistentBashArgs {
  @JSONSchema({
    description:
      'The bash command to run in your persistent shell (multi-line, heredocs and quotes are fine). While an earlier command waits for input, this text is sent to it as one line of input instead (^C interrupts, ^D sends end-of-file).',
  })
  @IsString({ message: 'invalid command: expected a non-empty string' })
  @Matches(NON_BLANK, { message: 'invalid command: expected a non-empty string' })
  command!: string;

  @JSONSchema({ description: 'A 5-10 word active-voice summary of what the command does (display only).' })
  @IsOptional()
  @IsString({ message: 'invalid description: expected a non-empty string' })
  @Matches(NON_BLANK, { message: 'invalid description: expected a non-empty string' })
  description?: string;
}
