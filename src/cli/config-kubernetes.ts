import { resolveKubernetesConfig } from '../providers/kubernetes/kubernetes-config.js';

/**
 * Checks the `kubernetes:` section of a composition file with the provider's
 * own rules, so the file and `kubernetesEnvironment` never disagree. `image`
 * may come from `--kubernetes` instead, so a section without it is checked
 * with a placeholder. Returns the reason, or undefined.
 */
export function kubernetesChecks(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'expected a mapping';
  try {
    resolveKubernetesConfig({ image: 'placeholder', ...(value as object) });
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^invalid kubernetes config: /, '');
  }
}

/** One composition runs commands in one place: containers or pods, not both. */
export function checkOneEngine(environment: { readonly container?: unknown; readonly kubernetes?: unknown }): void {
  if (environment.container !== undefined && environment.kubernetes !== undefined) {
    throw new Error('--container and --kubernetes (or the container: and kubernetes: sections) exclude each other: choose one');
  }
}
