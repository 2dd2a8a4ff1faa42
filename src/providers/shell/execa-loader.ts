export type Execa = (typeof import('execa', { with: { 'resolution-mode': 'import' } }))['execa'];

let loading: Promise<Execa> | undefined;

/**
 * execa takes tens of milliseconds to load; commands that never spawn
 * (`--help`, `prompt`, a server before its first call) should not pay for
 * it, so it is loaded on the first spawn and cached.
 */
export function loadExeca(): Promise<Execa> {
  loading ??= import('execa').then((module) => module.execa);
  return loading;
}
