// Shared support for the container-defaults security suites: a host on the real
// engine, host tools bound read-only into the container, and small probes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { createHost, containerEnvironment, type ContainerConfig, type DshHost } from '../../../src/index.js';
import { TEST_IMAGE } from '../../support/container-engine.js';
import { sessionContainers } from '../../support/container-kit.js';

export const docker = new Docker();

type Session = ReturnType<DshHost['openSession']>;
type CallResult = { content: { text: string }[]; isError?: boolean };

export const text = (result: CallResult): string => result.content.map((block) => block.text).join('');

/** Where host tools are bound inside the container (the image has no perl, chown, mknod, setcap or unshare). */
const TOOLS_DIR = '/opt/dsh-test';

/** Host binaries bound read-only into the container, with every library they load except the loader. */
export function hostToolMounts(names: readonly string[]): string[] {
  const mounts = new Set<string>();
  for (const name of names) {
    const binary = realpathSync(execFileSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim());
    mounts.add(`${binary}:${TOOLS_DIR}/bin/${name}:ro`);
    const libraries = execFileSync('ldd', [binary], { encoding: 'utf8' }).match(/=> (\/\S+)/g) ?? [];
    for (const entry of libraries) {
      const library = entry.slice(3);
      mounts.add(`${realpathSync(library)}:${TOOLS_DIR}/lib/${path.basename(library)}:ro`);
    }
  }
  return [...mounts];
}

/** The shell words that run a bound host tool inside the container. */
export const tool = (name: string): string => `LD_LIBRARY_PATH=${TOOLS_DIR}/lib ${TOOLS_DIR}/bin/${name}`;

/** A fresh workspace (removed by `dispose`) and a host on the real engine with the given container section. */
export async function containerHost(
  container: Partial<ContainerConfig> = {},
  options: { tools?: readonly string[]; shell?: 'oneshot' | 'persistent' } = {},
): Promise<{ host: DshHost; workspace: string; dispose(): Promise<void> }> {
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-sec-ct-')));
  const mounts = [...(container.mounts ?? []), ...hostToolMounts(options.tools ?? [])];
  const host = await createHost(
    ...containerEnvironment({
      workspace,
      ...(options.shell === undefined ? {} : { shell: options.shell }),
      container: { image: TEST_IMAGE, ...container, mounts },
    }),
  );
  return {
    host,
    workspace,
    dispose: async () => {
      await host.dispose();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Runs one command in the session and returns its text. */
export async function run(session: Session, command: string, timeoutMs?: number): Promise<string> {
  return text(await session.call('bash', { command, description: 'Probe', ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) }));
}

/**
 * A bash line that connects to `address:port` and prints the first line it
 * reads, else `unreachable`. Bash's /dev/tcp needs no tool in the image.
 */
export const connectProbe = (address: string, port: number): string =>
  `r=$(timeout 3 bash -c 'exec 3<>/dev/tcp/${address}/${port} && head -1 <&3' 2>/dev/null); echo "${address} -> \${r:-unreachable}"`;

/**
 * A perl one-liner (no modules: raw syscalls with packed addresses) that
 * serves `secret` on 0.0.0.0:`port` to every connection.
 */
export function perlListener(port: number, secret: string): string {
  const script =
    `socket(S,2,1,6) or die "socket: $!"; setsockopt(S,1,2,pack("l",1)); ` +
    `bind(S,pack("S n x4 x8",2,${port})) or die "bind: $!"; listen(S,8) or die "listen: $!"; ` +
    `while (accept(C,S)) { syswrite(C,"${secret}\\n"); close(C) }`;
  return `${tool('perl')} -e '${script}'`;
}

/** The session's container id (exactly one must exist). */
export async function containerOf(sessionId: string): Promise<string> {
  const ids = await sessionContainers(sessionId);
  if (ids.length !== 1) throw new Error(`expected one container for session ${sessionId}, found ${ids.length}`);
  return ids[0]!;
}

/** Every IPv4 address the engine gave the session's container, on any network. */
export async function containerAddresses(sessionId: string): Promise<string[]> {
  const info = await docker.getContainer(await containerOf(sessionId)).inspect();
  return Object.values(info.NetworkSettings.Networks ?? {})
    .map((network) => network.IPAddress)
    .filter((address): address is string => typeof address === 'string' && address !== '');
}

/** The host's own IPv4 addresses (every interface but loopback): where its services listen. */
export function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry!.address);
}
