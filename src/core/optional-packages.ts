import { createRequire } from 'node:module';
import { MODULE_ANCHOR } from './module-anchor.js';

/**
 * The optional peer dependencies (package.json `peerDependenciesMeta`): only
 * the compositions that use one need it installed (docs/embedding.md, "What
 * an install weighs").
 */
export const OPTIONAL_PACKAGES = {
  /** The Docker (or Podman) engine client of `containerEnvironment`. */
  docker: ['dockerode'],
  /** The cluster client of `kubernetesEnvironment`. */
  kubernetes: ['@kubernetes/client-node'],
  /** The bash parser that command rules judge lines with. */
  commandRules: ['web-tree-sitter', 'tree-sitter-bash'],
} as const satisfies Record<string, readonly string[]>;

export type Resolve = (name: string) => unknown;

/** Resolves from this package, the way its own loads do: without loading the package. */
function resolveHere(name: string): unknown {
  return (typeof require === 'function' ? require : createRequire(MODULE_ANCHOR)).resolve(name);
}

/**
 * The `names` not installed where this package finds its dependencies. A
 * package that resolves but refuses the resolution (an ESM-only `exports`)
 * counts as installed: its load reports what is wrong with it.
 */
export function missingPackages(names: readonly string[], resolve: Resolve = resolveHere): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
    }
  });
}

/** What to say when `user` needs `missing`: names each package and the command that installs them. */
export function installMessage(user: string, missing: readonly string[]): string {
  const one = missing.length === 1;
  return (
    `${user} needs ${missing.join(' and ')}, which ${one ? 'is' : 'are'} not installed: ` +
    `install ${one ? 'it' : 'them'} beside dsh-tools (npm install ${missing.join(' ')})`
  );
}

/** Throws `installMessage` when any of `names` is not installed. */
export function requirePackages(user: string, names: readonly string[], resolve: Resolve = resolveHere): void {
  const missing = missingPackages(names, resolve);
  if (missing.length > 0) throw new Error(installMessage(user, missing));
}
