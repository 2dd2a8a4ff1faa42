import { MODEL_FRIENDLY_ENV } from '../process/child-env.js';

/**
 * The environment a container process gets on top of the image's own (which
 * the engine applies): the model-friendly settings, the names listed in
 * `executor.allowEnv` taken from the server's environment, `container.env`,
 * the caller's trusted env, then the managed `DSH_*` overlay. Nothing else
 * from the server's environment crosses into the container.
 */
export function containerExecEnv(
  allowEnv: readonly string[],
  containerEnv: Readonly<Record<string, string>>,
  spec: { readonly env?: Readonly<Record<string, string>>; readonly dshEnv?: Readonly<Record<string, string>> },
  extra: Readonly<Record<string, string>> = {},
  ambient: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const allowed: Record<string, string> = {};
  for (const name of allowEnv) {
    const value = ambient[name];
    if (value !== undefined && !name.startsWith('DSH_')) allowed[name] = value;
  }
  return { ...MODEL_FRIENDLY_ENV, ...extra, ...allowed, ...containerEnv, ...spec.env, ...spec.dshEnv };
}
