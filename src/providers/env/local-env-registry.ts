import { inject, injectable, multiInject, optional } from 'inversify';
import { HostConfig } from '../../core/host-config.js';
import { BuiltinEnvContributor } from './builtin-env-contributor.js';
import {
  EnvContributor,
  type EnvContributorInfo,
  type EnvExecution,
  type EnvRegistry,
} from './env-registry.js';

/**
 * Collects the managed `DSH_*` overlay from the built-in contributor and every
 * bound one. Ownership is checked once at construction (two owners of a key,
 * or a key without the prefix, fail loudly); values are collected fresh per call.
 */
@injectable()
export class LocalEnvRegistry implements EnvRegistry {
  private readonly contributors: readonly EnvContributor[];
  private readonly owners = new Map<string, string>();

  constructor(
    @multiInject(EnvContributor) @optional() contributors: EnvContributor[] | undefined,
    @inject(HostConfig) @optional() config: HostConfig | undefined,
  ) {
    this.contributors = [new BuiltinEnvContributor(config), ...(contributors ?? [])];
    const names = new Set<string>();
    for (const contributor of this.contributors) {
      if (names.has(contributor.name)) throw new Error(`two env contributors are named "${contributor.name}"`);
      names.add(contributor.name);
      for (const { key } of contributor.keys) {
        if (!/^DSH_[A-Z0-9_]+$/.test(key)) {
          throw new Error(`env contributor "${contributor.name}" declares "${key}": keys must match DSH_[A-Z0-9_]+`);
        }
        const owner = this.owners.get(key);
        if (owner !== undefined) {
          throw new Error(`env contributor "${contributor.name}" declares ${key}, which "${owner}" already owns`);
        }
        this.owners.set(key, contributor.name);
      }
    }
  }

  list(): EnvContributorInfo[] {
    return this.contributors.map(({ name, keys }) => ({ name, keys: keys.map((k) => ({ ...k })) }));
  }

  collect(execution: EnvExecution): Record<string, string> {
    const overlay: Record<string, string> = {};
    for (const contributor of this.contributors) {
      const values = contributor.resolve(execution);
      for (const [key, value] of Object.entries(values)) {
        if (this.owners.get(key) !== contributor.name) {
          throw new Error(`env contributor "${contributor.name}" returned ${key}, which it did not declare`);
        }
        if (value !== undefined) overlay[key] = value;
      }
    }
    return overlay;
  }
}
