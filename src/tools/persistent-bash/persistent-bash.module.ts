import { bindPromptSection, bindTool } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { BASH_PROMPT_TEXT } from '../bash/bash-config.js';
import { PersistentBashConfig, resolvePersistentBashConfig } from './persistent-bash-config.js';
import { PersistentBashTool } from './persistent-bash.tool.js';

/** Guidance specific to the persistent shell, shown next to the shared `tool:bash` section. */
export const PERSISTENT_BASH_PROMPT_TEXT =
  'Your bash shell persists between calls: cd, exported variables, functions and background jobs carry over. ' +
  'When a result says the shell was reset, the next call starts in a fresh shell in the workspace, so set up again what you need. ' +
  "When a result says a command is waiting for input, your next bash call's text is sent to that command as input.";

/**
 * The persistent `bash` tool (mounted instead of the one-shot tool) with its
 * prompt sections. Needs a `TerminalService` (see `terminalModule`) and an
 * `EnvRegistry`. A bad config fails here, at composition.
 */
export function persistentBashModule(config: Partial<PersistentBashConfig> = {}): PluginModule {
  const resolved = resolvePersistentBashConfig(config);
  return new PluginModule('tools:bash-persistent', ({ bind }) => {
    bind(PersistentBashConfig).toConstantValue(resolved);
    bindTool(bind, PersistentBashTool);
    bindPromptSection(bind, { name: 'tool:bash', order: 105, text: BASH_PROMPT_TEXT, tool: 'bash' });
    bindPromptSection(bind, { name: 'tool:bash-persistent', order: 106, text: PERSISTENT_BASH_PROMPT_TEXT, tool: 'bash' });
  });
}
