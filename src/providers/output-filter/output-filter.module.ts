import { bindSeam } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { PatternRedactor } from './pattern-redactor.js';
import { resolveRedactionConfig } from './redaction-config.js';
import { RedactionConfig, Redactor } from './redactor.js';
import { ModelTextFilter } from '../../core/model-text-filter.js';
import { RedactingTextFilter } from './redacting-text-filter.js';

/**
 * Redaction of model-visible text (`Redactor` → `PatternRedactor`, built
 * once from `config` and the server's environment at load). A bad pattern
 * fails the load. Backends and the host take `Redactor` as an optional
 * dependency, the host reaches it through `ModelTextFilter`; line collapse needs no binding (it always runs).
 */
export function outputFilterModule(config: Partial<RedactionConfig> = {}): PluginModule {
  const resolved = resolveRedactionConfig(config);
  return new PluginModule('output-filter', ({ bind }) => {
    bind(RedactionConfig).toConstantValue(resolved);
    bindSeam(bind, Redactor).toConstantValue(new PatternRedactor(resolved));
    // The host's filter reads whatever Redactor is bound when it is first used (replace/decorate included).
    bindSeam(bind, ModelTextFilter).to(RedactingTextFilter).inSingletonScope();
  });
}
