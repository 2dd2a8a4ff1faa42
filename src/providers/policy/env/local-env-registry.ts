import { inject, injectable, optional } from 'inversify';
import { asContributions, contributionsOf, type Contributions } from '../../../core/contribution-collector.js';
import { HostConfig } from '../../../core/host-config.js';
import { callInfoOf, currentToolCall } from '../../../core/tool-call-context.js';
import { Logger } from '../../logging/logger.js';
import { BuiltinEnvContributor } from './builtin-env-contributor.js';
import {
  EnvContributor,
  type EnvContributorInfo,
  type EnvExecution,
  type EnvRegistry,
} from './env-registry.js';

/**
 * Collects the managed `DSH_*` overlay from the built-in contributor and every
 * bound one, read per call (a contributor loaded after the registry was built
 * counts from the next call). Ownership (two owners of a key, or a key without
 * the prefix, fail loudly) is checked at construction and again whenever the
 * set of contributors changed; values are collected fresh per call.
 */
@injectable()
export class LocalEnvRegistry implements EnvRegistry {
  private readonly builtin: EnvContributor;
  private readonly bound: Contributions<EnvContributor>;
  private checked?: { readonly contributors: readonly EnvContributor[]; readonly owners: ReadonlyMap<string, string> };

  constructor(
    @inject(contributionsOf(EnvContributor)) @optional() contributors: Contributions<EnvContributor> | readonly EnvContributor[] | undefined,
    @inject(HostConfig) @optional() config: HostConfig | undefined,
    @inject(Logger) @optional() private readonly logger?: Logger,
  ) {
    this.builtin = new BuiltinEnvContributor(config);
    this.bound = asContributions(contributors);
    this.current();
  }

  list(): EnvContributorInfo[] {
    return this.current().contributors.map(({ name, keys }) => ({ name, keys: keys.map((k) => ({ ...k })) }));
  }

  collect(execution: EnvExecution): Record<string, string> {
    const { contributors, owners } = this.current();
    // A caller that did not say which call it collects for runs inside one (a tool of the embedder's own).
    const running = execution.call === undefined ? currentToolCall() : undefined;
    if (running !== undefined) execution = { ...execution, call: callInfoOf(running) };
    const overlay: Record<string, string> = {};
    for (const contributor of contributors) {
      const values = contributor.valuesFor(execution);
      for (const [key, value] of Object.entries(values)) {
        if (owners.get(key) !== contributor.name) {
          throw new Error(`env contributor "${contributor.name}" returned ${key}, which it did not declare`);
        }
        if (value === undefined) continue;
        // The overlay goes straight into a child's environment: a value it cannot carry fails here, naming its source.
        if (typeof value !== 'string' || value.includes('\0')) {
          throw new Error(`env contributor "${contributor.name}" returned ${key} that is not a string without NUL characters`);
        }
        overlay[key] = value;
      }
    }
    return overlay;
  }

  /** The contributors bound now and who owns each key; checked again only when the set changed. */
  private current(): { readonly contributors: readonly EnvContributor[]; readonly owners: ReadonlyMap<string, string> } {
    const contributors = [this.builtin, ...this.bound()];
    const last = this.checked;
    if (last && last.contributors.length === contributors.length && last.contributors.every((c, i) => c === contributors[i])) {
      return last;
    }
    this.checked = { contributors, owners: keyOwners(contributors) };
    return this.checked;
  }
}

function keyOwners(contributors: readonly EnvContributor[]): Map<string, string> {
  const owners = new Map<string, string>();
  const names = new Set<string>();
  for (const contributor of contributors) {
    if (names.has(contributor.name)) throw new Error(`two env contributors are named "${contributor.name}"`);
    names.add(contributor.name);
    for (const { key } of contributor.keys) {
      if (!/^DSH_[A-Z0-9_]+$/.test(key)) {
        throw new Error(`env contributor "${contributor.name}" declares "${key}": keys must match DSH_[A-Z0-9_]+`);
      }
      const owner = owners.get(key);
      if (owner !== undefined) {
        throw new Error(`env contributor "${contributor.name}" declares ${key}, which "${owner}" already owns`);
      }
      owners.set(key, contributor.name);
    }
  }
  return owners;
}
