import { ContainerModule, type ContainerModuleLoadOptions } from 'inversify';

/** A named ContainerModule: the unit the host loads, unloads and reports on. */
export class PluginModule extends ContainerModule {
  constructor(
    readonly name: string,
    load: (options: ContainerModuleLoadOptions) => void | Promise<void>,
  ) {
    super(load);
  }
}

export function pluginName(module: ContainerModule): string {
  return module instanceof PluginModule ? module.name : `module#${module.id}`;
}
