import { bindPromptSection, bindTool } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { checkToolName, renamedTool } from '../../core/renamed-tool.js';
import { BASH_PROMPT_TEXT } from '../bash/bash-config.js';
import { PersistentBashConfig, resolvePersistentBashConfig } from './persistent-bash-config.js';
import { PersistentBashTool } from './persistent-bash.tool.js';

/** Guidance specific to the persistent shell, shown next to the shared `tool:bash` section. */
const PERSISTENT_BASH_PROMPT_TEXT =
  'Your bash shell persists between calls: cd, exported variables, functions and background jobs carry over. ' +
  'When a result says the shell was reset, the next call starts in a fresh shell in the workspace, so set up again what you need. ' +
  "When a result says a command is waiting for input, your next bash call's text is sent to that command as input.";

/** The guidance for a persistent shell mounted under another name than `bash` (beside the one-shot shell). */
function persistentPromptText(name: string): string {
  if (name === 'bash') return PERSISTENT_BASH_PROMPT_TEXT;
  return (
    `The ${name} tool runs your commands in one bash shell that persists between its calls: cd, exported variables, functions and background jobs carry over. ` +
    `When a ${name} result says the shell was reset, the next ${name} call starts in a fresh shell in the workspace, so set up again what you need. ` +
    `When a ${name} result says a command is waiting for input, your next ${name} call's text is sent to that command as input.`
  );
}

export interface PersistentBashModuleOptions {
  /** The tool name. Default `bash`. */
  readonly name?: string;
  /** The one-shot shell is mounted too: its module contributes the shared `tool:bash` section. */
  readonly besideOneShot?: boolean;
}

/**
 * The persistent `bash` tool (alone, or beside the one-shot tool under
 * another name) with its prompt sections. Needs a `TerminalService` (see
 * `terminalModule`) and an `EnvRegistry`. A bad config or name fails here,
 * at composition.
 */
export function persistentBashModule(config: Partial<PersistentBashConfig> = {}, options: PersistentBashModuleOptions = {}): PluginModule {
  const resolved = resolvePersistentBashConfig(config);
  const name = checkToolName(options.name ?? 'bash', 'persistent shell');
  const tool = renamedTool(PersistentBashTool, name);
  return new PluginModule('tools:bash-persistent', ({ bind }) => {
    bind(PersistentBashConfig).toConstantValue(resolved);
    bindTool(bind, tool);
    if (options.besideOneShot !== true) bindPromptSection(bind, { name: 'tool:bash', order: 105, text: BASH_PROMPT_TEXT, tool: name });
    bindPromptSection(bind, { name: 'tool:bash-persistent', order: 106, text: persistentPromptText(name), tool: name });
  });
}
