/**
 * The child environment rules shared by every process the host spawns
 * (one-shot, background and PTY): scrub credentials, the server's own
 * runtime settings (`isServerRuntimeName`) and stale `DSH_*`, add
 * settings that keep output plain and non-interactive, then the trusted
 * caller env, then the managed `DSH_*` overlay. `process.env` is never touched.
 */
import { isCredential } from '../../output-filter/credential-names.js';
import { isServerRuntimeName } from './server-runtime-names.js';

export { isCredential, isCredentialName } from '../../output-filter/credential-names.js';

/** Settings that stop colour, pagers and prompts from garbling or hanging a call. */
export const MODEL_FRIENDLY_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  DEBIAN_FRONTEND: 'noninteractive',
});

interface ChildEnvOptions {
  /** Names kept even though they look like credentials (exact, case-sensitive). */
  readonly allow?: readonly string[];
  /** Trusted caller variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** Managed `DSH_*` overlay, applied last. */
  readonly dshEnv?: Readonly<Record<string, string>>;
  /** Extra settings applied after the model-friendly ones (e.g. a PTY's prompt). */
  readonly extra?: Readonly<Record<string, string>>;
}

/** Variables that make `bash -c` (`BASH_ENV`) or sh-mode shells (`ENV`) source a file: an rc file by the back door. */
const SHELL_STARTUP_VARS: readonly string[] = Object.freeze(['BASH_ENV', 'ENV']);

/** Removes `SHELL_STARTUP_VARS` from a child env built for a shell (in place; returns it). */
export function dropShellStartupVars(env: Record<string, string>): Record<string, string> {
  for (const name of SHELL_STARTUP_VARS) delete env[name];
  return env;
}

function isScrubbed(name: string, value: string, allow: readonly string[]): boolean {
  if (name.startsWith('DSH_')) return true;
  return (isCredential(name, value) || isServerRuntimeName(name)) && !allow.includes(name);
}

export function buildChildEnv(parent: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): Record<string, string> {
  const allow = options.allow ?? [];
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && !isScrubbed(name, value, allow)) env[name] = value;
  }
  Object.assign(env, MODEL_FRIENDLY_ENV, options.extra, options.env, options.dshEnv);
  return env;
}
