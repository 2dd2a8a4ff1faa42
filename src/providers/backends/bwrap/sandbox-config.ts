import path from 'node:path';
import type { ServiceIdentifier } from 'inversify';
import { configError as sharedConfigError, mergeConfig } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';
import { isSandboxMode, SANDBOX_MODES, type SandboxMode } from '../../../core/sandbox-mode.js';
import { checkProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../core/protected-paths.js';
import { DEFAULT_RESOURCE_LIMITS, resolveResourceLimits, type ResourceLimits } from './resource-limits.js';

export { isSandboxMode, SANDBOX_MODES };

/** Deployment settings of the sandboxed composition; every field optional in config. */
export interface SandboxConfig {
  /** Deployment default mode (the executor's `sandboxMode`). Default `read-only`. */
  readonly mode: SandboxMode;
  /** False adds `--unshare-net`: confined commands get no network. Default true. */
  readonly network: boolean;
  /** Workspace root for calls without a session cwd; default the process cwd. */
  readonly fallbackRoot?: string;
  /** The bwrap binary (looked up on PATH when not absolute). Default `bwrap`. */
  readonly bwrapPath: string;
  /** Per call (per persistent shell): processes, memory, open files. Defaults `DEFAULT_RESOURCE_LIMITS`. */
  readonly limits: ResourceLimits;
  /** Paths inside a writable workspace kept read-only (docs/security.md#protected-paths). Default `.git`, `.envrc`, `.vscode`. */
  readonly protectedPaths: readonly string[];
}

export const DEFAULT_SANDBOX_CONFIG: SandboxConfig = Object.freeze({
  mode: 'read-only',
  network: true,
  bwrapPath: 'bwrap',
  limits: DEFAULT_RESOURCE_LIMITS,
  protectedPaths: DEFAULT_PROTECTED_PATHS,
});

export const SandboxConfig: ServiceIdentifier<Partial<SandboxConfig>> = Symbol.for('dsh.SandboxConfig');

const KNOWN_KEYS: ReadonlySet<string> = new Set(['mode', 'network', 'fallbackRoot', 'bwrapPath', 'limits', 'protectedPaths']);

/**
 * Merges a partial config over `DEFAULT_SANDBOX_CONFIG` and checks it, so a
 * bad value fails when the plugin loads. Keys set to undefined count as
 * absent; `fallbackRoot` comes back absolute. Throws `invalid sandbox config: …`.
 */
export function resolveSandboxConfig(partial: Partial<SandboxConfig> | undefined = {}): SandboxConfig {
  const merged = mergeConfig('sandbox', DEFAULT_SANDBOX_CONFIG, partial, KNOWN_KEYS);
  if (!isSandboxMode(merged.mode)) {
    throw configError('mode', `must be one of ${SANDBOX_MODES.join(', ')}, got ${describeValue(merged.mode)}`);
  }
  if (typeof merged.network !== 'boolean') {
    throw configError('network', `must be true or false, got ${describeValue(merged.network)}`);
  }
  const { bwrapPath, fallbackRoot } = merged;
  if (typeof bwrapPath !== 'string' || bwrapPath === '' || bwrapPath.includes('\0')) {
    throw configError('bwrapPath', `must be a non-empty string, got ${describeValue(bwrapPath)}`);
  }
  if (fallbackRoot !== undefined && (typeof fallbackRoot !== 'string' || fallbackRoot === '' || fallbackRoot.includes('\0'))) {
    throw configError('fallbackRoot', `must be a non-empty path, got ${describeValue(fallbackRoot)}`);
  }
  const limits = resolveResourceLimits(partial?.limits);
  if ('problem' in limits) throw configError(limits.key, limits.problem);
  const protectedPaths = checkProtectedPaths(merged.protectedPaths);
  if ('problem' in protectedPaths) throw configError('protectedPaths', protectedPaths.problem);
  return Object.freeze({
    mode: merged.mode,
    network: merged.network,
    bwrapPath,
    limits,
    protectedPaths: protectedPaths.paths,
    ...(fallbackRoot === undefined ? {} : { fallbackRoot: path.resolve(fallbackRoot) }),
  });
}

function configError(key: string, problem: string): Error {
  return sharedConfigError('sandbox', key, problem);
}
