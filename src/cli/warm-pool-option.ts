import { InvalidArgumentError, type Command } from 'commander';
import type { CliEnvironment } from './cli-environment.js';

/** The most sandboxes a pool keeps ready (the composition file's `warmPool` bound). */
const MAX_WARM_POOL = 32;

export interface WarmPoolFlag {
  readonly warmPool?: number;
}

/** Adds `--warm-pool <n>` to `serve`. */
export function addWarmPoolOption(command: Command): Command {
  return command.option(
    '--warm-pool <n>',
    `container and pod modes: keep this many sandboxes started ahead for new sessions (0-${MAX_WARM_POOL}; container.warmPool / kubernetes.warmPool)`,
    parsePoolSize,
  );
}

function parsePoolSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size > MAX_WARM_POOL) throw new InvalidArgumentError(`expected a whole number from 0 to ${MAX_WARM_POOL}`);
  return size;
}

/** The composition with `--warm-pool` over the engine section's `warmPool`; refused where no engine runs the sessions. */
export function withWarmPool(environment: CliEnvironment, flag: WarmPoolFlag): CliEnvironment {
  const warmPool = flag.warmPool;
  if (warmPool === undefined) return environment;
  if (environment.kubernetes !== undefined) return { ...environment, kubernetes: { ...environment.kubernetes, warmPool } };
  if (environment.container !== undefined) return { ...environment, container: { ...environment.container, warmPool } };
  throw new InvalidArgumentError('--warm-pool needs --container or --kubernetes: only an engine\'s sandboxes can be started ahead');
}
