import type { ContainerModule, ServiceIdentifier } from 'inversify';
import { DshHost } from './dsh-host.js';
import { PluginModule } from './plugin-module.js';

/** The composition root: a host with the given plugins loaded, in order. */
export async function createHost(...modules: ContainerModule[]): Promise<DshHost> {
  const host = new DshHost();
  try {
    await host.load(...modules);
  } catch (error) {
    await host.dispose();
    throw error;
  }
  return host;
}

/**
 * A plugin that replaces whatever an earlier plugin bound under `token` with
 * `value`. Load it after the plugin it overrides (the usual place: the last
 * entry of a test's module list).
 */
export function replace<T>(token: ServiceIdentifier<T>, value: T, name = 'override'): PluginModule {
  return new PluginModule(name, ({ rebindSync }) => {
    rebindSync(token).toConstantValue(value);
  });
}
