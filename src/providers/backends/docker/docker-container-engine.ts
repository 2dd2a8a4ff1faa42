import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { DockerOptions } from 'dockerode';
import { lazyModule } from '../../../core/lazy-module.js';
import { OPTIONAL_PACKAGES, requirePackages } from '../../../core/optional-packages.js';
import type { Duplex } from 'node:stream';
import {
  type ContainerEngine,
  type ContainerHandle,
  type ContainerSpec,
  type ContainerState,
  type EngineInfo,
  type ExecChannel,
  type ExecOptions,
  type NetworkSpec,
} from '../../exec/engine/container-engine.js';
import { describeEngineError, engineEndpoint, withTimeout } from '../../exec/engine/engine-errors.js';
import { killTaggedThrough } from '../../exec/engine/kill-tagged.js';
import { createOptions } from './docker-create-options.js';
import { FlaggedBinds } from './flagged-binds.js';

/** dockerode (and its SSH and gRPC dependencies) loads with the first engine call. */
const loadDockerode = lazyModule<typeof Docker>(
  () => (assertDockerode(), require('dockerode')),
  () => (assertDockerode(), import('dockerode').then((module) => module.default)),
);

/** dockerode is an optional peer dependency: only the container composition needs it. */
function assertDockerode(): void {
  requirePackages('the Docker container engine', OPTIONAL_PACKAGES.docker);
}

/** Engine calls that are not streams give up after this long instead of hanging a tool call. */
const CALL_TIMEOUT_MS = 15_000;

/**
 * `ContainerEngine` on the Docker Engine API through dockerode. Only calls
 * Podman's compatible API also serves are used (create/start/attach/exec,
 * inspect, list by label, remove), so `host` may point at a Podman socket.
 */
export class DockerContainerEngine implements ContainerEngine {
  readonly endpoint: string;
  private readonly options: DockerOptions;
  /** dockerode (and its SSH/gRPC dependencies) loads on the first engine call, not with the package. */
  private client?: Promise<Docker>;
  /** Containers this engine created or watches, until they stop: their execs' streams are cut when they do. */
  private readonly stopping = new Map<string, Promise<ContainerState>>();
  /** Writable host paths staged so the container's mount is nosuid,nodev (root beside a local engine only). */
  private readonly flaggedBinds: FlaggedBinds;

  constructor(host?: string) {
    const { endpoint, options } = engineEndpoint(host);
    this.endpoint = endpoint;
    this.options = options;
    this.flaggedBinds = new FlaggedBinds(process.getuid?.() === 0 && options.socketPath !== undefined);
  }

  assertInstalled(): void {
    assertDockerode();
  }

  async info(): Promise<EngineInfo> {
    const version = await this.call('version', (docker) => docker.version());
    return { endpoint: this.endpoint, version: version.Version, apiVersion: version.ApiVersion };
  }

  async imagePresent(image: string): Promise<boolean> {
    try {
      await this.call('inspect image', (docker) => docker.getImage(image).inspect());
      return true;
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404 || /no such image/i.test(String(error))) return false;
      throw error;
    }
  }

  async create(spec: ContainerSpec): Promise<ContainerHandle> {
    const staging = await this.flaggedBinds.stage(spec.mounts);
    if (!staging) return this.createWith(spec, spec.mounts);
    try {
      const handle = await this.createWith(spec, staging.mounts).catch((error: unknown) => {
        if (staging.unseen(error)) return undefined;
        throw error;
      });
      if (handle && (await staging.holds(await this.mainPid(handle.id)))) return handle;
      if (handle) await this.remove(handle.id);
      this.flaggedBinds.giveUp('the engine does not see this server\'s mounts');
    } finally {
      await staging.release();
    }
    return this.createWith(spec, spec.mounts);
  }

  private async mainPid(containerId: string): Promise<number | undefined> {
    const info = await this.call('inspect container', (docker) => docker.getContainer(containerId).inspect()).catch(() => undefined);
    const pid = info?.State.Pid;
    return typeof pid === 'number' && pid > 0 ? pid : undefined;
  }

  private async createWith(spec: ContainerSpec, mounts: ContainerSpec['mounts']): Promise<ContainerHandle> {
    const container = await this.call('create container', (docker) =>
      docker.createContainer(createOptions(spec, mounts)),
    );
    // Attach before start: the lifeline stream must exist before the main process reads it (a detached one has none).
    const lifeline = spec.detached === true
      ? undefined
      : ((await this.call('attach', () =>
          container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true }),
        )) as unknown as Duplex);
    lifeline?.on('error', () => undefined);
    try {
      await this.call('start container', () => container.start());
    } catch (error) {
      lifeline?.destroy();
      await container.remove({ force: true, v: true }).catch(() => undefined);
      throw error;
    }
    return { id: container.id, stopped: this.track(container, () => lifeline?.destroy()) };
  }

  /** A shared session's container another server created: its stop settles like one of ours. */
  async watch(containerId: string): Promise<ContainerState> {
    const docker = await this.docker().catch(() => undefined);
    if (docker === undefined) return { running: false, unknown: true, reason: 'the engine cannot be reached' };
    return this.track(docker.getContainer(containerId));
  }

  /** Settles when the container stops (or is gone), and until then cuts nothing; `onStop` runs then. */
  private track(container: Docker.Container, onStop: () => void = () => undefined): Promise<ContainerState> {
    const known = this.stopping.get(container.id);
    if (known !== undefined) return known;
    const stopped = container
      .wait({ condition: 'not-running' })
      .then(
        () => this.state(container.id),
        (): ContainerState => ({ running: false, reason: 'removed' }),
      )
      .finally(() => {
        onStop();
        this.stopping.delete(container.id);
      });
    this.stopping.set(container.id, stopped);
    return stopped;
  }

  async exec(containerId: string, options: ExecOptions): Promise<ExecChannel> {
    const docker = await this.docker();
    const container = docker.getContainer(containerId);
    const exec = await this.call('exec', () =>
      container.exec({
        Cmd: [...options.argv],
        Env: Object.entries(options.env).map(([k, v]) => `${k}=${v}`),
        WorkingDir: options.workdir,
        AttachStdin: options.stdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: options.tty,
        ...(options.user === undefined ? {} : { User: options.user }),
      }),
    );
    const stream = (await this.call('start exec', () =>
      exec.start({ hijack: true, stdin: options.stdin, Tty: options.tty }),
    )) as unknown as Duplex;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    if (options.tty) {
      stream.pipe(stdout);
      stderr.end();
    } else {
      docker.modem.demuxStream(stream, stdout, stderr);
    }
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', resolve);
    });
    // An engine may keep an exec's stream open after its container was killed: cut it then, never hang.
    void this.stopping.get(containerId)?.then(() => stream.destroy());
    void ended.then(() => {
      stdout.end();
      stderr.end();
    });
    const exited = ended.then(async () => {
      // A hung inspect must not hold the call: without an answer the status is unknown.
      try {
        const info = await withTimeout(exec.inspect(), CALL_TIMEOUT_MS, 'exec inspect timed out');
        return { exitCode: typeof info.ExitCode === 'number' ? info.ExitCode : null };
      } catch {
        return { exitCode: null };
      }
    });
    if (options.tty && options.cols && options.rows) await exec.resize({ w: options.cols, h: options.rows }).catch(() => undefined);
    return {
      stdout,
      stderr,
      exited,
      write: (data) => void stream.write(data),
      resize: async (cols, rows) => void (await exec.resize({ w: cols, h: rows }).catch(() => undefined)),
      hostPid: async () => {
        try {
          const pid = (await exec.inspect()).Pid;
          return typeof pid === 'number' && pid > 0 ? pid : undefined;
        } catch {
          return undefined;
        }
      },
      detach: () => stream.destroy(),
    };
  }

  killTagged(containerId: string, tag: string, signal: 'TERM' | 'KILL'): Promise<number> {
    // uid 0 needs no passwd entry in the image; the scan must see every user's processes.
    return killTaggedThrough((options) => this.exec(containerId, options), tag, signal, { user: '0' });
  }

  async state(containerId: string): Promise<ContainerState> {
    try {
      const info = await this.call('inspect container', (docker) => docker.getContainer(containerId).inspect());
      const s = info.State;
      if (s.Running && !s.Paused) return { running: true };
      if (s.Paused) return { running: false, reason: 'paused' };
      if (s.OOMKilled) return { running: false, reason: 'out of memory' };
      return { running: false, reason: s.Error ? s.Error : `exited with code ${s.ExitCode}` };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return { running: false, reason: 'removed' };
      return { running: false, unknown: true, reason: describeEngineError(error, this.endpoint) };
    }
  }

  async remove(containerId: string): Promise<void> {
    try {
      await this.call('remove container', (docker) => docker.getContainer(containerId).remove({ force: true, v: true }));
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      // 404: already gone; 409: AutoRemove is already removing it (wait, so its network can go next).
      if (status === 409) await this.call('wait for removal', (docker) => docker.getContainer(containerId).wait({ condition: 'removed' })).catch(() => undefined);
      else if (status !== 404) throw error;
    }
  }

  async createNetwork(spec: NetworkSpec): Promise<string> {
    const network = await this.call('create network', (docker) =>
      docker.createNetwork({
        Name: spec.name,
        Driver: 'bridge',
        CheckDuplicate: true,
        // Internal: nothing is routed beyond the bridge; the bridge's own address on the host stays reachable.
        Internal: spec.egress === 'host',
        Labels: { ...spec.labels },
        Options: { 'com.docker.network.bridge.name': spec.bridgeName },
      }),
    );
    return network.id;
  }

  async removeNetwork(networkId: string): Promise<void> {
    try {
      await this.call('remove network', (docker) => docker.getNetwork(networkId).remove());
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
  }

  async listNetworks(labels: readonly string[]): Promise<Array<{ id: string; labels: Record<string, string> }>> {
    const found = await this.call('list networks', (docker) => docker.listNetworks({ filters: JSON.stringify({ label: labels }) }));
    return found.map((n) => ({ id: n.Id, labels: n.Labels ?? {} }));
  }

  async list(labels: readonly string[]): Promise<Array<{ id: string; labels: Record<string, string> }>> {
    const found = await this.call('list containers', (docker) =>
      docker.listContainers({ all: true, filters: JSON.stringify({ label: labels }) }),
    );
    return found.map((c) => ({ id: c.Id, labels: c.Labels ?? {} }));
  }

  private docker(): Promise<Docker> {
    this.client ??= loadDockerode().then((Dockerode) => new Dockerode(this.options));
    return this.client;
  }

  private call<T>(what: string, run: (docker: Docker) => Promise<T>): Promise<T> {
    return withTimeout(this.docker().then(run), CALL_TIMEOUT_MS, `${what} timed out after ${CALL_TIMEOUT_MS}ms`).catch((error: unknown) => {
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== undefined && status !== 500) throw error;
      throw Object.assign(new Error(describeEngineError(error, this.endpoint)), { statusCode: status });
    });
  }
}
