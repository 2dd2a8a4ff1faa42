import 'reflect-metadata';
import { Command, Option } from 'commander';
import { registerCallCommand } from './call.command.js';
import { registerDoctorCommand } from './doctor.command.js';
import { registerPromptCommand } from './prompt.command.js';
import { registerServeCommand } from './serve.command.js';
import { messageOf } from '../core/describe-value.js';
import { ARG_SCHEMAS_FILE, useArgSchemaCache } from '../core/args-schemas.js';
import { closeInheritedDescriptors } from '../providers/exec/process/stray-descriptors.js';

// Our own process: descriptors inherited from whoever started us reach no command, bwrap or helper we spawn.
closeInheritedDescriptors();

// The build writes the argument schemas beside the host (scripts/cache-arg-schemas.mjs): start-up skips class-validator.
useArgSchemaCache(new URL(`../core/${ARG_SCHEMAS_FILE}`, import.meta.url));

const program = new Command('dsh-tools')
  .description('Shell tools for AI agents: an MCP server, one-off tool calls, the assembled prompt, and a health check.')
  .option('--config <file>', 'composition file (YAML or JSON): shell, executor limits, task limits, env values')
  .addOption(new Option('--shell <kind>', 'which shell tools are mounted (both: bash and bash_persistent)').choices(['oneshot', 'persistent', 'both']))
  .addOption(
    new Option('--sandbox <mode>', 'sandbox mode for commands').choices(['read-only', 'workspace-write', 'danger-full-access']),
  )
  .option('--no-network', 'confined commands get no network and no host socket (selects the sandbox; read-only unless --sandbox)')
  .option('--workspace <dir>', 'working directory of the session (default: the current directory)')
  .option('--container <image>', "run every session's commands in its own container of this image (Docker engine API)")
  .option('--kubernetes <image>', "run every session's commands in its own pod of this image (the cluster of $KUBECONFIG)")
  .showHelpAfterError('(add --help for details)')
  .enablePositionalOptions(false);

registerServeCommand(program);
registerCallCommand(program);
registerPromptCommand(program);
registerDoctorCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`dsh-tools: ${messageOf(error)}\n`);
  process.exitCode = 2;
});
