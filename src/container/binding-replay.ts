import { ContainerModule, type ContainerModuleLoadOptions, type ServiceIdentifier } from 'inversify';

/** A fluent binding chain that records nothing: every call returns it again. */
function sink(): unknown {
  const chain: object = new Proxy(function chainStep() {}, { get: () => () => chain, apply: () => chain });
  return chain;
}

/**
 * A module that binds again only what `original` binds under `token` (its
 * other bindings and handlers are skipped). When a plugin that `replace()`d a
 * provider is unloaded, the host loads this for the plugin whose binding the
 * replacement had removed, so the previous provider comes back (built anew:
 * the replaced instance was disposed when it was replaced).
 */
export function replayBindingsOf(original: ContainerModule, token: ServiceIdentifier): ContainerModule {
  return new ContainerModule((options) => {
    const only = <F extends (id: ServiceIdentifier) => unknown>(real: F): F =>
      ((id: ServiceIdentifier) => (id === token ? real(id) : sink())) as F;
    const bind = Object.assign(only(options.bind), options.bind);
    const filtered: ContainerModuleLoadOptions = {
      ...options,
      bind,
      rebind: (async (id: ServiceIdentifier) => (id === token ? options.rebind(id) : sink())) as ContainerModuleLoadOptions['rebind'],
      rebindSync: only(options.rebindSync),
      unbind: (async () => undefined) as ContainerModuleLoadOptions['unbind'],
      unbindSync: (() => undefined) as ContainerModuleLoadOptions['unbindSync'],
      onActivation: (id, handler) => (id === token ? options.onActivation(id, handler) : undefined),
      onDeactivation: (id, handler) => (id === token ? options.onDeactivation(id, handler) : undefined),
    };
    return original.load(filtered);
  });
}
