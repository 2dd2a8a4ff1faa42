import os from 'node:os';
import path from 'node:path';
import type { HostConfig } from '../../../core/host-config.js';
import type { EnvContributor, EnvExecution } from './env-registry.js';

/** The host's own `DSH_*` variables. */
export class BuiltinEnvContributor implements EnvContributor {
  readonly name = 'dsh';
  readonly keys = [
    { key: 'DSH_HOME', description: 'Absolute path of the dsh home directory.' },
    { key: 'DSH_SHELL', description: 'Always 1: the command runs under the dsh shell tools.' },
    { key: 'DSH_SESSION_ID', description: 'Id of the calling agent session.' },
    { key: 'DSH_SESSION_JSONL', description: 'Transcript path of the calling session, when it has one.' },
  ] as const;
  private readonly home: string;

  constructor(config: HostConfig = {}, ambient: NodeJS.ProcessEnv = process.env) {
    // Read once: the ambient value is captured before any scrub of children.
    this.home = path.resolve(config.dshHome ?? ambient.DSH_HOME ?? path.join(os.homedir(), '.dsh'));
  }

  valuesFor(execution: EnvExecution): Record<string, string | undefined> {
    return {
      DSH_HOME: this.home,
      DSH_SHELL: '1',
      DSH_SESSION_ID: execution.session?.id,
      DSH_SESSION_JSONL: execution.session?.jsonlPath,
    };
  }
}
