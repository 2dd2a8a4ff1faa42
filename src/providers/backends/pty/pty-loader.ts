import type * as NodePty from 'node-pty';

/** The part of node-pty's API the persistent shell uses (`@lydell/node-pty` has the same). */
type PtyModule = Pick<typeof NodePty, 'spawn'>;

/** Where the persistent shell's PTY comes from, in order of preference. */
const PTY_MODULES = ['node-pty', '@lydell/node-pty'] as const;

/** What to install when neither PTY module loads (shown by `doctor` and by the pending persistent shell). */
export const PTY_INSTALL_HINT =
  'install @lydell/node-pty (prebuilt binaries) or node-pty (compiles from source: needs python3, make and g++)';

type PtyLoad =
  | { readonly ok: true; readonly module: PtyModule; readonly name: string }
  | { readonly ok: false; readonly reason: string };

let loading: Promise<PtyLoad> | undefined;

/**
 * Loads the first PTY module that works: node-pty when its native addon
 * built at install time, else the prebuilt `@lydell/node-pty`. Both are
 * optional dependencies, so an install on a machine without a compiler still
 * succeeds; then only the persistent shell is unavailable. Cached.
 */
export function loadPty(): Promise<PtyLoad> {
  loading ??= loadFirstPty(PTY_MODULES);
  return loading;
}

/** The first of `names` that imports and has `spawn`; else why none did. */
export async function loadFirstPty(names: readonly string[]): Promise<PtyLoad> {
  const failures: string[] = [];
  for (const name of names) {
    try {
      // Both PTY modules are CommonJS: the CommonJS build requires them (which also works
      // where import() is unavailable, e.g. jest without VM modules); the ESM build imports them.
      const loaded = (typeof require === 'function' ? require(name) : await import(name)) as PtyModule & { default?: PtyModule };
      const module = typeof loaded.spawn === 'function' ? loaded : loaded.default;
      if (typeof module?.spawn !== 'function') throw new Error('it has no spawn()');
      return { ok: true, module, name };
    } catch (error) {
      failures.push(`${name} ${whyNot(error)}`);
    }
  }
  return { ok: false, reason: `no PTY module loads (${failures.join('; ')}); ${PTY_INSTALL_HINT}` };
}

/** The loaded PTY module, or a thrown Error with the reason. */
export async function requirePty(): Promise<PtyModule> {
  const load = await loadPty();
  if (!load.ok) throw new Error(load.reason);
  return load.module;
}

/** `not installed` for a missing package, else the first line of the load error (e.g. a native addon built for another Node). */
function whyNot(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return 'is not installed';
  return `does not load: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`;
}
