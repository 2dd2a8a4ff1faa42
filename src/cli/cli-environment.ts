import type { DshConfig } from '../plugins/config/dsh-config.js';

/** What a command composes: the composition file's options with the flags over them. */
export type CliEnvironment = DshConfig;
