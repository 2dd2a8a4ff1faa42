import type { ServiceIdentifier } from 'inversify';

/** Deployment facts shared by providers. */
export interface HostConfig {
  /** Fallback working directory when a call has no session cwd. */
  readonly workspace?: string;
  /** `DSH_HOME`; else the ambient `$DSH_HOME`; else `~/.dsh`. */
  readonly dshHome?: string;
}

export const HostConfig: ServiceIdentifier<HostConfig> = Symbol.for('dsh.HostConfig');
