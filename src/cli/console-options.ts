import type { Command } from 'commander';
import type { DshHost } from '../container/dsh-host.js';
import { hideServerFile } from '../core/server-files.js';
import type { HttpToken } from '../mcp/access/http-auth.js';
import type { ConsoleParts } from '../mcp/console/console-module.js';

/** `serve --console --operator-token-file <path>` (docs/operations.md, "Operator console"). */
export interface ConsoleFlags {
  readonly console?: boolean;
  readonly operatorTokenFile?: string;
}

/** The file's `serve:` keys the console reads (the flags override them). */
export interface ConsoleFileSettings {
  readonly console?: boolean;
  readonly operatorTokenFile?: string;
}

export function addConsoleOptions(command: Command): Command {
  return command
    .option('--console', 'HTTP: serve the operator console at /console (sessions, tasks, approvals, audit; serve.console)')
    .option('--operator-token-file <path>', "HTTP: the console's operator tokens, like --token-file's formats; never caller tokens (serve.operatorTokenFile)");
}

/** The console's settings: flags over the file; undefined when it is off. Throws for settings that do not fit. */
export function consoleSettings(flags: ConsoleFlags, file: ConsoleFileSettings | undefined, http: boolean): { readonly tokenFile: string } | undefined {
  const on = flags.console === true || file?.console === true;
  const tokenFile = flags.operatorTokenFile ?? file?.operatorTokenFile;
  if (!on) {
    if (flags.operatorTokenFile !== undefined) throw new Error('--operator-token-file applies to --console only');
    return undefined;
  }
  if (!http) throw new Error('--console applies to --http only');
  if (tokenFile === undefined) throw new Error('--console needs --operator-token-file <path> (or serve.operatorTokenFile): the console takes operator tokens only');
  return { tokenFile };
}

/** Loads the console into `host` and reads its operator tokens (hidden from commands like every server file). */
export async function startConsole(host: DshHost, tokenFile: string, callers: HttpToken | 'none'): Promise<ConsoleParts & { readonly operators: HttpToken }> {
  const [{ resolveOperatorTokens }, { loadConsole }] = await Promise.all([import('../mcp/console/operator-tokens.js'), import('../mcp/console/console-module.js')]);
  const operators = resolveOperatorTokens(tokenFile, callers);
  // No command reads the tokens (docs/security.md#hidden-server-files).
  hideServerFile(tokenFile);
  return { ...(await loadConsole(host)), operators };
}
