import type Docker from 'dockerode';
import type { ContainerMount, ContainerSpec } from '../../exec/engine/container-engine.js';
import { dockerMounts } from './docker-mounts.js';

/**
 * The main process of every container: it reads its stdin, which is a
 * stream this server holds, and exits when that closes (server death
 * included). `Init` reaps orphans and AutoRemove deletes the container.
 */
const LIFELINE = ['/bin/sh', '-c', 'while read -r _; do :; done; exit 0'];

/**
 * A detached container's main process (`spec.detached`): the same loop, on
 * a stdin the engine keeps open with nobody attached (no `StdinOnce`), so it
 * waits at no cost until it is removed. Under `Init` it is not PID 1: the
 * SIGTERM of a stop ends it at once.
 */
const DETACHED_MAIN = LIFELINE;

/** The Docker API's create request for one session's container, with `mounts` in place of the spec's own. */
export function createOptions(spec: ContainerSpec, mounts: readonly ContainerMount[]): Docker.ContainerCreateOptions {
  const engineMounts = dockerMounts(mounts, spec.labels);
  return {
    name: spec.name,
    Image: spec.image,
    Cmd: spec.detached === true ? DETACHED_MAIN : LIFELINE,
    Entrypoint: [],
    Labels: { ...spec.labels },
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    OpenStdin: true,
    StdinOnce: spec.detached !== true,
    AttachStdin: spec.detached !== true,
    ...(spec.user === undefined ? {} : { User: spec.user }),
    HostConfig: {
      AutoRemove: true,
      Init: true,
      Binds: engineMounts.binds,
      Mounts: engineMounts.mounts as Docker.MountSettings[],
      ReadonlyRootfs: spec.readOnlyRootfs,
      ...(spec.network === undefined ? {} : { NetworkMode: spec.network }),
      ...(spec.memoryBytes === undefined ? {} : { Memory: spec.memoryBytes, MemorySwap: spec.memoryBytes }),
      ...(spec.nanoCpus === undefined ? {} : { NanoCpus: spec.nanoCpus }),
      ...(spec.pidsLimit === undefined ? {} : { PidsLimit: spec.pidsLimit }),
      CapDrop: ['ALL'],
      CapAdd: spec.capabilities.map((name) => `CAP_${name}`),
      SecurityOpt: [
        ...(spec.noNewPrivileges ? ['no-new-privileges:true'] : []),
        ...(spec.seccompProfile === undefined ? [] : [`seccomp=${spec.seccompProfile}`]),
      ],
    },
  };
}
