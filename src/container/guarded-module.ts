import { ContainerModule, type ContainerModuleLoadOptions, type ServiceIdentifier } from 'inversify';
import { pluginName } from './plugin-module.js';
import { SINGLE_PROVIDER_TOKENS, tokenName } from './tokens.js';
import { getToolMeta } from './tool.decorator.js';

/**
 * Wraps a plugin so that binding a second provider for a single-provider
 * seam fails loudly (naming the plugin and the seam) instead of leaving an
 * ambiguous binding that breaks later at resolve time. `replace()` (a
 * rebind) stays the explicit way to swap a provider. Records the tokens the plugin binds
 * or rebinds in `boundHere`, so the host knows which tools a load or an
 * unload affects.
 */
export function guardedModule(
  module: ContainerModule,
  boundHere: Set<ServiceIdentifier> = new Set(),
  singleTokens = SINGLE_PROVIDER_TOKENS,
): ContainerModule {
  return new ContainerModule((options) => {
    boundHere.clear();
    const bind: ContainerModuleLoadOptions['bind'] = (token) => {
      if (singleTokens.has(token) && (boundHere.has(token) || options.isBound(token))) {
        throw new Error(
          `plugin "${pluginName(module)}" binds a second provider for ${tokenName(token)}, which takes exactly one; ` +
            'unload the other provider first, or swap it with replace(token, …) or decorate(token, …)',
        );
      }
      if (getToolMeta(token) && (boundHere.has(token) || options.isBound(token))) {
        throw new Error(`plugin "${pluginName(module)}" binds tool class ${tokenName(token)}, which is already bound`);
      }
      boundHere.add(token);
      return options.bind(token);
    };
    const rebind: ContainerModuleLoadOptions['rebind'] = (token) => {
      boundHere.add(token);
      return options.rebind(token);
    };
    const rebindSync: ContainerModuleLoadOptions['rebindSync'] = (token) => {
      boundHere.add(token);
      return options.rebindSync(token);
    };
    return module.load({ ...options, bind, rebind, rebindSync });
  });
}
