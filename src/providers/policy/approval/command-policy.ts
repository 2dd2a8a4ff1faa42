import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';

/** What a command rule does with a command it matches. */
export type CommandAction = 'allow' | 'ask' | 'deny';

/**
 * One rule: `match` is a command prefix (whole words: `git status` matches
 * `git status -s`, not `git statusx`) or a regular expression tested against
 * each simple command. First match wins.
 */
export interface CommandRule {
  readonly match: string | RegExp;
  readonly action: CommandAction;
  /** Shown in refusals and approval prompts; default: the match as written. */
  readonly name?: string;
}

/** A command a tool is about to run, with the facts a rule or a person needs. */
export interface CommandCheck {
  readonly tool: string;
  readonly command: string;
  readonly workdir?: string;
  readonly sandboxMode?: SandboxMode;
  readonly session?: SessionContext;
  readonly callId: string;
  readonly signal?: AbortSignal;
}

export type CommandVerdict = { readonly allowed: true } | { readonly allowed: false; readonly message: string };

/**
 * Decides whether a command may run: `allow` runs it, `deny` refuses it
 * without running anything, `ask` goes to the approval service (fail
 * closed). Tools call it before anything runs and show a refusal's message
 * as `Error: <message>`.
 */
export interface CommandPolicy {
  check(request: CommandCheck): Promise<CommandVerdict>;
}

export const CommandPolicy: ServiceIdentifier<CommandPolicy> = Symbol.for('dsh.CommandPolicy');
