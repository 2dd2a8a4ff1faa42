import type { Command } from 'commander';
import { escapeForDisplay } from '../core/display-text.js';
import { ignoreBrokenStdout } from './broken-pipe.js';
import type { GlobalOptions } from './cli-options.js';

/** One line per capability; exit 1 only when bash itself is missing. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('report bash, node-pty, bwrap, user namespaces and the container engine, and what each missing piece disables')
    .action(async (_options: unknown, command: Command) => {
      ignoreBrokenStdout();
      // The checks run programs through execa: loaded here, not at every command's start.
      const [{ resolveEnvironment }, { runChecks }, { checkContainerEngine }] = await Promise.all([
        import('./cli-options.js'),
        import('./doctor-checks.js'),
        import('./doctor-container.js'),
      ]);
      const environment = await resolveEnvironment(command.optsWithGlobals<GlobalOptions>());
      // The configured bwrap (--config's sandbox.bwrapPath), probed the way serve would use it.
      const checks = [...(await runChecks(environment.sandbox)), ...(await checkContainerEngine(environment))];
      const width = Math.max(...checks.map((check) => check.name.length));
      for (const check of checks) {
        const status = check.ok ? 'ok     ' : 'missing';
        const tail = check.ok ? '' : ` — disables ${check.disables}`;
        // Details quote configured paths and programs' own messages: one escaped line each.
        process.stdout.write(`${status} ${check.name.padEnd(width)}  ${escapeForDisplay(`${check.detail}${tail}`)}\n`);
      }
      process.exitCode = checks.find((check) => check.name === 'bash')?.ok ? 0 : 1;
    });
}
