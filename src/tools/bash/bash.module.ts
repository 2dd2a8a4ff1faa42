import { bindPromptSection, bindTool } from '../../container/contributions.js';
import { PluginModule } from '../../container/plugin-module.js';
import { BashToolConfig, BASH_PROMPT_TEXT, type BashToolConfig as Config } from './bash-config.js';
import { BashTool } from './bash.tool.js';

/** The one-shot `bash` tool and its `tool:bash` prompt section. */
export function bashToolModule(config: Partial<Config> = {}): PluginModule {
  return new PluginModule('tools:bash', ({ bind }) => {
    bind(BashToolConfig).toConstantValue(Object.freeze({ ...config }));
    bindTool(bind, BashTool);
    bindPromptSection(bind, { name: 'tool:bash', order: 105, text: BASH_PROMPT_TEXT, tool: 'bash' });
  });
}
