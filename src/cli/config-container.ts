import { resolveContainerConfig } from '../providers/container-engine/container-config.js';

/**
 * Checks the `container:` section of a composition file with the provider's
 * own rules (the shared config merge), so the file and `containerEnvironment`
 * never disagree. `image` may come from `--container` instead, so a section
 * without it is checked with a placeholder. Returns the reason, or undefined.
 */
export function containerChecks(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'expected a mapping';
  try {
    resolveContainerConfig({ image: 'placeholder', ...(value as object) });
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^invalid container config: /, '');
  }
}
