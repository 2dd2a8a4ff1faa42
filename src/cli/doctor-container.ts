import type { CapabilityCheck } from './doctor-checks.js';
import type { CliEnvironment } from './cli-options.js';

/**
 * The container engine (reachable, version, API version) at the configured
 * host; when container mode is configured, whether the engine has the image
 * and which session container defaults are in force.
 */
export async function checkContainerEngine(environment: Pick<CliEnvironment, 'container'>): Promise<CapabilityCheck[]> {
  const engineChecks = await checkEngine(environment);
  // Only when container mode is configured: the defaults then say what every session container gets.
  return environment.container === undefined ? engineChecks : [...engineChecks, await hardeningCheck(environment), await callHelperCheck()];
}

/** Whether this installation has the native call helper its channels run calls through (docs/containers.md#the-native-call-helper). */
async function callHelperCheck(): Promise<CapabilityCheck> {
  const { callHelperBinary } = await import('../providers/exec/engine/native/call-helper.js');
  const binary = callHelperBinary();
  return {
    name: 'native call helper',
    ok: binary !== null,
    detail: binary ?? `not built for ${process.arch} (npm run build found no C compiler with a static libc)`,
    disables: 'the native call helper: channel calls start a bash of their own (slower in a burst)',
  };
}

async function checkEngine(environment: Pick<CliEnvironment, 'container'>): Promise<CapabilityCheck[]> {
  const disables = "container mode (--container): every session's commands in its own container";
  const { DockerContainerEngine } = await import('../providers/backends/docker/docker-container-engine.js');
  let engine;
  try {
    engine = new DockerContainerEngine(environment.container?.host);
  } catch (error) {
    return [{ name: 'container engine', ok: false, detail: (error as Error).message, disables }];
  }
  let info;
  try {
    info = await engine.info();
  } catch (error) {
    return [{ name: 'container engine', ok: false, detail: (error as Error).message, disables }];
  }
  const checks: CapabilityCheck[] = [
    {
      name: 'container engine',
      ok: true,
      detail: `reachable at ${info.endpoint}, version ${info.version}, API ${info.apiVersion}`,
      disables,
    },
  ];
  const image = environment.container?.image;
  if (image !== undefined) {
    let present = false;
    let detail: string;
    try {
      present = await engine.imagePresent(image);
      detail = present ? `${image} is present` : `${image} is not present on the engine (build or pull it)`;
    } catch (error) {
      detail = `${image}: cannot inspect (${(error as Error).message})`;
    }
    checks.push({ name: 'container image', ok: present, detail, disables: 'container mode with this image' });
  }
  return checks;
}

/** The session container defaults in force (capabilities, no-new-privileges, seccomp, limits, network). */
async function hardeningCheck(environment: Pick<CliEnvironment, 'container'>): Promise<CapabilityCheck> {
  const [{ resolveContainerConfig }, { describeHardening }] = await Promise.all([
    import('../providers/exec/engine/container-config.js'),
    import('../providers/exec/engine/container-hardening.js'),
  ]);
  const name = 'container defaults';
  const disables = 'container mode with this configuration';
  try {
    const config = resolveContainerConfig({ image: 'placeholder', ...environment.container });
    return { name, ok: true, detail: describeHardening(config), disables };
  } catch (error) {
    return { name, ok: false, detail: (error as Error).message, disables };
  }
}
