import { ContainerModule, type ContainerModuleLoadOptions, type ServiceIdentifier } from 'inversify';
import { pluginName } from '../core/plugin-module.js';
import { DECLARE_SINGLE_PROVIDER } from '../core/contributions.js';
import { tokenName } from '../core/token-name.js';
import { getToolMeta } from '../core/tool.decorator.js';
import { ServiceHandlers } from './service-handlers.js';

/**
 * Wraps a plugin so that binding a second provider for a single-provider
 * seam fails loudly (naming the plugin and the seam) instead of leaving an
 * ambiguous binding that breaks later at resolve time. A seam is
 * single-provider once a plugin binds it through `bindSeam`/`bindProvider`
 * (recorded in `singleTokens`, which the host keeps across loads). `replace()` (a
 * rebind) stays the explicit way to swap a provider. Records the tokens the plugin binds
 * or rebinds in `boundHere`, so the host knows which tools a load or an
 * unload affects. Service-level handlers (`decorate()`) are recorded in
 * `handlers` and replayed after each rebind, so a later `replace()` keeps them.
 */
export function guardedModule(
  module: ContainerModule,
  boundHere: Set<ServiceIdentifier> = new Set(),
  singleTokens: Set<ServiceIdentifier> = new Set(),
  handlers: ServiceHandlers = new ServiceHandlers(),
): ContainerModule {
  const guarded: ContainerModule = new ContainerModule((options) => {
    boundHere.clear();
    const guardedBind: ContainerModuleLoadOptions['bind'] = (token) => {
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
    const bind = Object.assign(guardedBind, {
      [DECLARE_SINGLE_PROVIDER]: (token: ServiceIdentifier) => void singleTokens.add(token),
    });
    const rebind: ContainerModuleLoadOptions['rebind'] = async (token) => {
      boundHere.add(token);
      const binding = await options.rebind(token);
      handlers.replay(token, options);
      return binding;
    };
    const rebindSync: ContainerModuleLoadOptions['rebindSync'] = (token) => {
      boundHere.add(token);
      const binding = options.rebindSync(token);
      handlers.replay(token, options);
      return binding;
    };
    return module.load(handlers.recording(guarded, { ...options, bind, rebind, rebindSync }));
  });
  return guarded;
}
