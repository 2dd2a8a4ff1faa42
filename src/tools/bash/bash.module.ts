import { bindPromptSection, bindTool } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { BashToolConfig, BASH_PROMPT_TEXT, resolveBashToolConfig, type BashToolConfig as Config } from './bash-config.js';
import { BashTool } from './bash.tool.js';

/** The one-shot `bash` tool and its `tool:bash` prompt section. A bad config fails here, at composition. */
export function bashToolModule(config: Partial<Config> = {}): PluginModule {
  const resolved = resolveBashToolConfig(config);
  return new PluginModule('tools:bash', ({ bind }) => {
    bind(BashToolConfig).toConstantValue(resolved);
    bindTool(bind, BashTool);
    bindPromptSection(bind, { name: 'tool:bash', order: 105, text: BASH_PROMPT_TEXT, tool: 'bash' });
  });
}
