import { ContainerModule, type ContainerModuleLoadOptions, type ServiceIdentifier } from 'inversify';
import { pluginName } from '../core/plugin-module.js';
import { DECLARE_SINGLE_PROVIDER } from '../core/contributions.js';
import { tokenName } from '../core/token-name.js';
import { getToolMeta } from '../core/tool.decorator.js';
import { ServiceHandlers } from './service-handlers.js';
import { withBuiltValueDeactivation } from './decorated-values.js';
import type { BindingGraph } from './binding-graph.js';
import { recordingBinding } from './binding-recorder.js';

/** What the host keeps across loads and learns from each one. */
interface ModuleGuard {
  /** Filled with the tokens the plugin binds or rebinds (cleared first). */
  readonly boundHere: Set<ServiceIdentifier>;
  /** Filled with the tokens the plugin rebinds (`replace()`): their previous binding is restored when it is unloaded. */
  readonly replacedHere?: Set<ServiceIdentifier>;
  /** Single-provider seams (`bindSeam`), across loads. */
  readonly singleTokens?: Set<ServiceIdentifier>;
  /** Service-level handlers (`decorate()`), replayed after each rebind. */
  readonly handlers?: ServiceHandlers;
  /** Tokens resolved at least once since they were (re)bound: a decorator loaded now would not apply to them. */
  readonly activated?: Set<ServiceIdentifier>;
  /** The plugins binding a token now, for the refusal that says which to unload. */
  readonly ownersOf?: (token: ServiceIdentifier) => string[];
  /** Filled with what each binding's provider injects (its class's constructor tokens). */
  readonly graph?: BindingGraph;
  /** Told each value built for a token (with `activated`): the host disposes a rebuilt singleton's old instance. */
  readonly onBuilt?: (token: ServiceIdentifier, value: unknown) => void;
}

/**
 * Wraps a plugin so that binding a second provider for a single-provider
 * seam fails loudly (naming the plugin, the seam and the plugin that has it)
 * instead of leaving an ambiguous binding that breaks later at resolve time.
 * A seam is single-provider once a plugin binds it through
 * `bindSeam`/`bindProvider`. `replace()` (a rebind) stays the explicit way to
 * swap a provider. Records what the plugin binds and rebinds, so the host
 * knows which tools a load or an unload affects, and which tokens are
 * resolved. Service-level handlers (`decorate()`) are recorded and replayed
 * after each rebind, so a later `replace()` keeps them. A binding's own
 * deactivation handler gets the provider it built, never a decorator's wrapper.
 */
export function guardedModule(module: ContainerModule, guard: ModuleGuard): ContainerModule {
  const { boundHere, replacedHere, singleTokens = new Set(), handlers = new ServiceHandlers(), activated, ownersOf, graph, onBuilt } = guard;
  const guarded: ContainerModule = new ContainerModule((options) => {
    boundHere.clear();
    graph?.forget(guarded);
    replacedHere?.clear();
    const probed = new Set<ServiceIdentifier>();
    const probe = (token: ServiceIdentifier): void => {
      activated?.delete(token);
      if (!activated || probed.has(token)) return;
      probed.add(token);
      options.onActivation(token, (_context, value) => (activated.add(token), onBuilt?.(token, value), value));
    };
    const guardedBind: ContainerModuleLoadOptions['bind'] = (token) => {
      if (singleTokens.has(token) && (boundHere.has(token) || options.isBound(token))) {
        const owners = ownersOf?.(token) ?? [];
        const other = owners.length === 0 ? 'the other provider' : `plugin ${owners.map((name) => `"${name}"`).join(', ')}`;
        throw new Error(
          `plugin "${pluginName(module)}" binds a second provider for ${tokenName(token)}, which takes exactly one; ` +
            `unload ${other} first, or swap it with replace(token, …) or decorate(token, …)`,
        );
      }
      if (getToolMeta(token) && (boundHere.has(token) || options.isBound(token))) {
        throw new Error(`plugin "${pluginName(module)}" binds tool class ${tokenName(token)}, which is already bound`);
      }
      return bindOwn(token);
    };
    const bindOwn: ContainerModuleLoadOptions['bind'] = (token) => {
      boundHere.add(token);
      const binding = options.bind(token);
      probe(token);
      return withBuiltValueDeactivation(graph ? recordingBinding(binding, graph, guarded, token) : binding);
    };
    const bind = Object.assign(guardedBind, {
      [DECLARE_SINGLE_PROVIDER]: (token: ServiceIdentifier) => void singleTokens.add(token),
    });
    // A rebind is an unbind and a bind of this plugin's own, so unloading it removes (and disposes) the replacement.
    // Inversify drops a token's service-level handlers when it is unbound: the host's dispatcher goes back on.
    const unbound = (token: ServiceIdentifier, wasBound: boolean): void => {
      boundHere.add(token);
      replacedHere?.add(token);
      graph?.unbound(token);
      if (wasBound) handlers.reinstall(token, options);
      probed.delete(token);
    };
    const rebind: ContainerModuleLoadOptions['rebind'] = async (token) => {
      const wasBound = options.isBound(token);
      if (wasBound) await options.unbind(token);
      unbound(token, wasBound);
      return bindOwn(token);
    };
    const rebindSync: ContainerModuleLoadOptions['rebindSync'] = (token) => {
      const wasBound = options.isBound(token);
      if (wasBound) options.unbindSync(token);
      unbound(token, wasBound);
      return bindOwn(token);
    };
    return module.load(handlers.recording(guarded, { ...options, bind, rebind, rebindSync }));
  });
  return guarded;
}
