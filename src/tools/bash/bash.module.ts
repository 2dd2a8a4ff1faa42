import { bindPromptSection, bindTool } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { checkToolName, renamedTool } from '../../core/renamed-tool.js';
import { BashToolConfig, BASH_PROMPT_TEXT, resolveBashToolConfig, type BashToolConfig as Config } from './bash-config.js';
import { BashTool } from './bash.tool.js';

/**
 * The one-shot `bash` tool (under `name`, default `bash`) and its `tool:bash`
 * prompt section. A bad config or name fails here, at composition.
 */
export function bashToolModule(config: Partial<Config> = {}, name = 'bash'): PluginModule {
  const resolved = resolveBashToolConfig(config);
  const tool = renamedTool(BashTool, checkToolName(name, 'one-shot shell'));
  return new PluginModule('tools:bash', ({ bind }) => {
    bind(BashToolConfig).toConstantValue(resolved);
    bindTool(bind, tool);
    bindPromptSection(bind, { name: 'tool:bash', order: 105, text: BASH_PROMPT_TEXT, tool: name });
  });
}
