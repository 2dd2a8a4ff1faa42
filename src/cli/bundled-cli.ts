import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { bundleIdOf, decodeCodeCache, encodeCodeCache } from './code-cache.js';

/** The bundled CLI beside this file (scripts/bundle-cli.mjs). */
export const BUNDLE_FILE = 'dsh-tools.cjs';
/**
 * Each command has a code cache of its own (`dsh-tools.cjs.<command>.cache`):
 * V8 deserializes a whole cache up front, so `prompt` should not pay for the
 * MCP SDK that `serve` compiles, nor for the validation a call compiles.
 */
const CACHED_COMMANDS = ['serve', 'call', 'prompt'] as const;
/** Set by the build: the run writes its command's code cache at its exit. */
const RECORD_ENV = 'DSH_TOOLS_RECORD_CODE_CACHE';
/** Set to 1 to run the module tree instead of the bundle (debugging, the module-load tests). */
export const MODULES_ENV = 'DSH_TOOLS_MODULE_TREE';
/** Set to 1 to print which way the bundle was compiled (tests). */
const TRACE_ENV = 'DSH_TOOLS_CODE_CACHE_TRACE';

/** How the bundle was compiled: with its cache, or from source because the cache was absent, not this bundle's or damaged, or refused by V8 (another node version or other V8 flags). */
type CacheOutcome = 'used' | 'absent' | 'invalid' | 'rejected';

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The bundle's `import()` (scripts/bundle-cli.mjs rewrites it to this): a
 * vm.Script's own import() needs an experimental callback on Node 20. This
 * file sits beside the bundle, so packages resolve alike.
 */
function importFromHere(specifier: string): Promise<unknown> {
  return import(specifier);
}

/** The cache file a command line uses. */
export function cacheFileFor(bundleFile: string, argv: readonly string[]): string {
  const command = argv.find((arg) => (CACHED_COMMANDS as readonly string[]).includes(arg)) ?? 'prompt';
  return `${bundleFile}.${command}.cache`;
}

/** Compiles the bundle's source as a CommonJS function, with the cache when it fits. */
export function compileBundle(file: string, source: string, cacheFile: string): { script: vm.Script; outcome: CacheOutcome } {
  const bundleId = bundleIdOf(source);
  const cache = bundleId === undefined ? undefined : readOrUndefined(cacheFile);
  const cachedData = cache === undefined ? undefined : decodeCodeCache(bundleId!, cache);
  const wrapped = `(function (exports, require, module, __filename, __dirname, __dshImport, __dshChunk) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const outcome = cache === undefined ? 'absent' : cachedData === undefined ? 'invalid' : script.cachedDataRejected ? 'rejected' : 'used';
  return { script, outcome };
}

/** Written beside the bundle through a temporary name, so a reader never sees half a file. */
function writeCacheAtExit(script: vm.Script, cacheFile: string, bundleId: string): void {
  process.once('exit', () => {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, encodeCodeCache(bundleId, script.createCachedData()));
    renameSync(temporary, cacheFile);
  });
}

/**
 * Runs one file of the bundle as a CommonJS module, compiled with this
 * command's code cache of that file when the cache fits (else from source: a
 * cache never decides whether the CLI runs). Its exports, or undefined when
 * the file is missing.
 */
function runBundleFile(file: string, chunk: (name: string) => unknown): unknown {
  const buffer = readOrUndefined(file);
  if (buffer === undefined) return undefined;
  // The bundle is ASCII (scripts/bundle-cli.mjs checks): latin1 skips UTF-8 decoding.
  const source = buffer.toString('latin1');
  const cacheFile = cacheFileFor(file, process.argv.slice(2));
  const { script, outcome } = compileBundle(file, source, cacheFile);
  if (process.env[TRACE_ENV] === '1') {
    const which = path.basename(file) === BUNDLE_FILE ? '' : ` (${path.basename(file)})`;
    process.stderr.write(`dsh-tools: code cache ${outcome}${which}\n`);
  }
  const bundleId = bundleIdOf(source);
  if (process.env[RECORD_ENV] === '1' && bundleId !== undefined) writeCacheAtExit(script, cacheFile, bundleId);
  const dir = path.dirname(file);
  const bundle = new Module(file);
  bundle.filename = file;
  bundle.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(dir);
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(bundle.exports, bundle.exports, createRequire(file), bundle, file, dir, importFromHere, chunk);
  return bundle.exports;
}

/**
 * The bundle's chunks (`dsh-tools.<name>.cjs` beside it): packages that no
 * command needs before its first answer, each run once, when the start-up
 * bundle first asks for it (scripts/bundle-cli.mjs).
 */
function chunkLoader(dir: string): (name: string) => unknown {
  const loaded = new Map<string, unknown>();
  const load = (name: string): unknown => {
    if (!loaded.has(name)) {
      if (!/^[a-z-]+$/.test(name)) throw new Error(`dsh-tools: no bundle chunk ${name}`);
      const exports = runBundleFile(path.join(dir, `dsh-tools.${name}.cjs`), load);
      if (exports === undefined) throw new Error(`dsh-tools: the bundle chunk dsh-tools.${name}.cjs is missing beside ${BUNDLE_FILE}`);
      loaded.set(name, exports);
    }
    return loaded.get(name);
  };
  return load;
}

/**
 * Runs the bundled CLI from `dir` as CommonJS, compiled with its V8 code cache
 * when the cache fits (else from source: a cache never decides whether the
 * CLI runs). False when there is no bundle: the caller loads the module tree.
 */
export function runBundledCli(dir: string): boolean {
  if (process.env[MODULES_ENV] === '1') return false;
  return runBundleFile(path.join(dir, BUNDLE_FILE), chunkLoader(dir)) !== undefined;
}
