import fs from 'node:fs';
import type { ContainerMount } from '../../exec/engine/container-engine.js';

/** One entry of the Docker API's `HostConfig.Mounts`. */
interface EngineMount {
  readonly Type: 'bind' | 'volume';
  readonly Target: string;
  readonly Source?: string;
  readonly ReadOnly: boolean;
  readonly VolumeOptions?: {
    readonly Labels: Record<string, string>;
    readonly DriverConfig: { readonly Name: 'local'; readonly Options: Record<string, string> };
  };
}

/**
 * A session's mounts in the Docker API's terms (docs/security/container-defaults.md#mount-flags).
 * A read-only directory becomes an anonymous `local`-driver volume of type
 * `none` with `o=bind,ro,nosuid,nodev` (`noexec` when asked): the driver
 * binds it and then remounts it with those flags, which a plain bind cannot
 * carry. The driver applies flags only in that read-only remount, so a
 * writable directory, and any file, stays a bind (`Binds`, which creates a
 * missing source as before); what holds there is no-new-privileges, the
 * device cgroup and the seccomp profile. Anonymous volumes go with the
 * container (AutoRemove, or a removal that asks for its volumes).
 */
export function dockerMounts(mounts: readonly ContainerMount[], labels: Readonly<Record<string, string>>): { binds: string[]; mounts: EngineMount[] } {
  const binds: string[] = [];
  const volumes: EngineMount[] = [];
  for (const mount of mounts) {
    if (flaggedByVolume(mount)) {
      const flags = ['bind', 'ro', 'nosuid', 'nodev', ...(mount.noExec === true ? ['noexec'] : [])];
      volumes.push({
        Type: 'volume',
        Target: mount.target,
        // The engine refuses ReadOnly on an anonymous volume; the driver's `ro` remount makes it read-only, and no session holds CAP_SYS_ADMIN to undo that.
        ReadOnly: false,
        VolumeOptions: { Labels: { ...labels }, DriverConfig: { Name: 'local', Options: { type: 'none', device: mount.source, o: flags.join(',') } } },
      });
    } else if (mount.kind !== undefined || mount.noExec === true) {
      // A mount the session layer looked at (protected path, mask) must exist; a bind of `Mounts` does not create one.
      volumes.push({ Type: 'bind', Source: mount.source, Target: mount.target, ReadOnly: mount.readOnly });
    } else {
      binds.push(`${mount.source}:${mount.target}:${mount.readOnly ? 'ro' : 'rw'}`);
    }
  }
  return { binds, mounts: volumes };
}

/** Whether the mount becomes a flagged `local` volume (a read-only directory); every other one is a bind without the flags. */
export function flaggedByVolume(mount: ContainerMount): boolean {
  return mount.readOnly && isDirectory(mount);
}

function isDirectory(mount: ContainerMount): boolean {
  if (mount.kind !== undefined) return mount.kind === 'directory';
  try {
    return fs.statSync(mount.source).isDirectory();
  } catch {
    return false;
  }
}
