import type { Readable } from 'node:stream';
import type { ServiceIdentifier } from 'inversify';

/** A bind mount: `source` on the engine's host at `target` inside the container. */
export interface ContainerMount {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
  /** Programs on it cannot be run (`:ro,noexec` in config; read-only mounts only). */
  readonly noExec?: boolean;
  /** What the source is, when the session layer looked: an engine must not create a missing one (a pod's hostPath type). */
  readonly kind?: 'directory' | 'file';
}

/** Everything needed to create one session's container. */
export interface ContainerSpec {
  readonly image: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Fixed variables of the container (added to the image's own environment). */
  readonly env: Readonly<Record<string, string>>;
  readonly mounts: readonly ContainerMount[];
  /** `none`, an engine network name (a session network's too), or undefined for the engine's default. */
  readonly network?: string;
  readonly memoryBytes?: number;
  readonly nanoCpus?: number;
  readonly pidsLimit?: number;
  readonly user?: string;
  readonly readOnlyRootfs: boolean;
  /** Capabilities kept; every other one is dropped. */
  readonly capabilities: readonly string[];
  /** Setuid bits and file capabilities grant nothing (exec'd processes included). */
  readonly noNewPrivileges: boolean;
  /** A seccomp profile in the engine's JSON format; undefined: the engine's default profile. */
  readonly seccompProfile?: string;
  /**
   * Not tied to this server's life (a shared session's sandbox, see
   * docs/shared-sessions.md#sandboxes): no lifeline, no owner; it runs until
   * it is removed, and stops promptly when it is stopped.
   */
  readonly detached?: boolean;
}

/** A bridge network of one session's own (see `Egress` in container-hardening.ts). */
export interface NetworkSpec {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `host`: reaches the host's services only; `internet`: routed out like the default bridge. */
  readonly egress: 'host' | 'internet';
  /** The host-side interface name (at most 15 characters), so a host firewall rule can match every session network. */
  readonly bridgeName: string;
}

/** Why a container is not running any more (for the restart notice). */
export interface ContainerState {
  readonly running: boolean;
  /** Short human reason when not running: `out of memory`, `killed (exit 137)`, `removed`, … */
  readonly reason?: string;
  /** The engine could not be asked (its API unreachable): `running` says nothing, and nothing may be replaced for it. */
  readonly unknown?: boolean;
}

/** A started container. Its main process lives exactly as long as `lifeline` stays open. */
export interface ContainerHandle {
  readonly id: string;
  /** Settles once the engine reports the container stopped (or gone). Never rejects. */
  readonly stopped: Promise<ContainerState>;
}

export interface ExecOptions {
  readonly argv: readonly string[];
  /** Added to the container's environment for this process and its children. */
  readonly env: Readonly<Record<string, string>>;
  readonly workdir: string;
  /** One PTY for both streams (persistent shell); otherwise separate stdout and stderr. */
  readonly tty: boolean;
  /** Keep stdin open for `write` (the persistent shell). */
  readonly stdin: boolean;
  readonly user?: string;
  readonly cols?: number;
  readonly rows?: number;
}

/** How an exec ended. `exitCode` is null when the engine could not tell. */
export interface ExecExit {
  readonly exitCode: number | null;
}

/** A running process inside a container. */
export interface ExecChannel {
  /** stdout (with a TTY: the terminal's whole output). Ends when the process's output ends. */
  readonly stdout: Readable;
  /** stderr; empty and already ended with a TTY. */
  readonly stderr: Readable;
  /** Settles after the output streams ended, with the exec's exit status. Never rejects. */
  readonly exited: Promise<ExecExit>;
  write(data: string): void;
  resize(cols: number, rows: number): Promise<void>;
  /**
   * The exec's process id on the engine's host, when the engine runs on this
   * machine and reports it (Docker does; Podman and Kubernetes may not).
   */
  hostPid(): Promise<number | undefined>;
  /** Closes our end of the streams (the process itself is killed with `killTagged`). */
  detach(): void;
}

/** The engine behind `doctor`. */
export interface EngineInfo {
  readonly endpoint: string;
  readonly version: string;
  readonly apiVersion: string;
}

/**
 * The container operations the container executor and terminal backend use;
 * one provider per engine (Docker/Podman here; Kubernetes maps onto the same
 * calls, see docs/container-engine.md). Every method rejects with a
 * message that names the cause (unreachable engine, missing image, …).
 */
export interface ContainerEngine {
  readonly endpoint: string;
  /** What one session runs in, as the model's prompt names it; default `container`. */
  readonly sessionUnit?: 'container' | 'pod';
  info(): Promise<EngineInfo>;
  imagePresent(image: string): Promise<boolean>;
  /**
   * Creates and starts a container whose main process waits on a stream held
   * by this process: when this process dies, the container stops and is removed
   * (unless `spec.detached`: then it runs until removed or stopped).
   */
  create(spec: ContainerSpec): Promise<ContainerHandle>;
  /**
   * Settles once a container another process created (a shared session's,
   * `detached`) stops or goes away, like `ContainerHandle.stopped`. Never
   * rejects. Without it, only `state` tells that an adopted container stopped.
   */
  watch?(containerId: string): Promise<ContainerState>;
  exec(containerId: string, options: ExecOptions): Promise<ExecChannel>;
  /**
   * Signals every process in the container whose environment carries
   * `DSH_EXEC_TAG=<tag>`: the exec started with that tag and everything it
   * started, even after `setsid`. Resolves with how many were signalled.
   */
  killTagged(containerId: string, tag: string, signal: 'TERM' | 'KILL'): Promise<number>;
  state(containerId: string): Promise<ContainerState>;
  /** Stops and removes; resolves when it is gone (a missing container is not an error). */
  remove(containerId: string): Promise<void>;
  /**
   * Containers carrying every given label (`key=value`), stopped ones
   * included. An engine that shortens label values (Kubernetes) still
   * reports the dsh-tools ones whole.
   */
  list(labels: readonly string[]): Promise<Array<{ readonly id: string; readonly labels: Readonly<Record<string, string>> }>>;
  /** Creates a network for one session's container; resolves with its id. */
  createNetwork(spec: NetworkSpec): Promise<string>;
  /** Removes a network once no container uses it (a missing network is not an error). */
  removeNetwork(networkId: string): Promise<void>;
  /** Networks carrying every given label (`key=value`). */
  listNetworks(labels: readonly string[]): Promise<Array<{ readonly id: string; readonly labels: Readonly<Record<string, string>> }>>;
  /** `hostPid` answers for this machine's /proc whatever the endpoint (default: only a unix-socket engine's does). */
  readonly localPids?: boolean;
  /** Removes what dead servers left where labels and pids do not tell (Kubernetes: expired leases); resolves with how many went. */
  reapAbandoned?(): Promise<number>;
  /** Releases what the engine holds for this server once every session's container is gone. */
  dispose?(): Promise<void>;
  /** Throws, naming what to install, when a package the engine loads on demand is not installed (checked at composition). */
  assertInstalled?(): void;
}

export const ContainerEngine: ServiceIdentifier<ContainerEngine> = Symbol.for('dsh.ContainerEngine');

/** The variable that tags an exec's process tree (see `killTagged`). */
export const EXEC_TAG_VAR = 'DSH_EXEC_TAG';

/** Label keys on every container (and session network) the host creates. */
export const LABELS = Object.freeze({
  managed: 'dsh-tools.managed',
  session: 'dsh-tools.session',
  instance: 'dsh-tools.instance',
  hostname: 'dsh-tools.hostname',
  pid: 'dsh-tools.pid',
  /** `1` on a shared session's sandbox (and its network): the session record owns it, not a server process. */
  shared: 'dsh-tools.shared',
  /** A shared sandbox's session directory on the host that made it. */
  dir: 'dsh-tools.dir',
  /** When a shared sandbox was made (milliseconds since the epoch): a sweep spares the young. */
  created: 'dsh-tools.created',
});
