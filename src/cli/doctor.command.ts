import type { Command } from 'commander';
import { resolveEnvironment, type GlobalOptions } from './cli-options.js';
import { runChecks } from './doctor-checks.js';
import { ignoreBrokenStdout } from './broken-pipe.js';

/** One line per capability; exit 1 only when bash itself is missing. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('report bash, node-pty, bwrap and user-namespace availability and what each missing piece disables')
    .action(async (_options: unknown, command: Command) => {
      ignoreBrokenStdout();
      // The configured bwrap (--config's sandbox.bwrapPath), probed the way serve would use it.
      const { sandbox } = await resolveEnvironment(command.optsWithGlobals<GlobalOptions>());
      const checks = await runChecks(sandbox);
      const width = Math.max(...checks.map((check) => check.name.length));
      for (const check of checks) {
        const status = check.ok ? 'ok     ' : 'missing';
        const tail = check.ok ? '' : ` — disables ${check.disables}`;
        process.stdout.write(`${status} ${check.name.padEnd(width)}  ${check.detail}${tail}\n`);
      }
      process.exitCode = checks.find((check) => check.name === 'bash')?.ok ? 0 : 1;
    });
}
