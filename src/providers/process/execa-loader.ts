export type Execa = (typeof import('execa', { with: { 'resolution-mode': 'import' } }))['execa'];

/**
 * execa asked for the spawn and its error normalisation only: a new process
 * group, no inherited env, no buffering, no timeout, no cleanup hook or kill
 * escalation — each of those acts on the leader alone, while the executor
 * acts on the whole group.
 */
export const BARE_SPAWN = {
  extendEnv: false,
  detached: true,
  buffer: false,
  encoding: 'buffer',
  reject: false,
  cleanup: false,
  stripFinalNewline: false,
  forceKillAfterDelay: false,
} as const;

let loading: Promise<Execa> | undefined;

/** Where the CommonJS build keeps execa bundled as CommonJS (scripts/build.mjs), from this file in dist/cjs. */
const BUNDLED_EXECA = '../../vendor/execa.cjs';

/**
 * execa takes tens of milliseconds to load; commands that never spawn
 * (`--help`, `prompt`, a server before its first call) should not pay for
 * it, so it is loaded on the first spawn and cached. The CommonJS build
 * requires its bundled copy (execa itself is ESM-only), so CommonJS runtimes
 * without `import()`, such as jest without VM modules, run real commands too.
 */
export function loadExeca(): Promise<Execa> {
  loading ??= (async () => {
    if (typeof require === 'function') return (require(BUNDLED_EXECA) as { execa: Execa }).execa;
    return (await import('execa')).execa;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
