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

/**
 * execa takes tens of milliseconds to load; commands that never spawn
 * (`--help`, `prompt`, a server before its first call) should not pay for
 * it, so it is loaded on the first spawn and cached.
 */
export function loadExeca(): Promise<Execa> {
  loading ??= import('execa').then(
    (module) => module.execa,
    (error: unknown) => {
      loading = undefined;
      throw explainImportFailure(error);
    },
  );
  return loading;
}

/**
 * execa is ESM-only, so the CommonJS build loads it with a real dynamic
 * import(). Runtimes that run CommonJS code without an import() hook (jest
 * without VM modules) fail with a bare error code; say what to do instead.
 */
function explainImportFailure(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING' && code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG') return error;
  return new Error(
    'cannot load execa (ESM-only): this runtime has no dynamic import() here; under jest in CommonJS mode run ' +
      'jest with NODE_OPTIONS=--experimental-vm-modules, or unit-test over ScriptedExecutor from dsh-tools/testing',
  );
}
