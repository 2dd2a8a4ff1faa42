import { bindContributions } from '../../../core/contribution-collector.js';
import { bindProvider } from '../../../core/contributions.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { EnvContributor, EnvRegistry } from './env-registry.js';
import { LocalEnvRegistry } from './local-env-registry.js';

/** The env registry with the built-in `DSH_*` variables and every bound `EnvContributor`, read per call. */
export function envModule(): PluginModule {
  return new PluginModule('env:registry', (options) => {
    bindProvider(options.bind, EnvRegistry, LocalEnvRegistry);
    bindContributions(options, EnvContributor);
  });
}

/** Static `DSH_*` values from configuration, as one named contributor. */
export function staticEnvModule(name: string, values: Readonly<Record<string, string>>): PluginModule {
  const keys = Object.keys(values).map((key) => ({ key, description: `static value from "${name}"` }));
  return new PluginModule(`env:${name}`, ({ bind }) => {
    bind(EnvContributor).toConstantValue({ name, keys, valuesFor: () => ({ ...values }) });
  });
}
