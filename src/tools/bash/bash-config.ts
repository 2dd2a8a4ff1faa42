import type { ServiceIdentifier } from 'inversify';

export interface BashToolConfig {
  /** When false, `run_in_background` leaves the schema and a forced call is refused. */
  readonly enableRunInBackground: boolean;
}

export const DEFAULT_BASH_TOOL_CONFIG: BashToolConfig = Object.freeze({ enableRunInBackground: true });

export const BashToolConfig: ServiceIdentifier<Partial<BashToolConfig>> = Symbol.for('dsh.BashToolConfig');

/** The `tool:bash` prompt section text (SPEC §4.1), shared by the one-shot and persistent tools. */
export const BASH_PROMPT_TEXT =
  'Check the [exit code: N] marker on every bash result; investigate failures before moving on.';
