import type { Command } from 'commander';
import type { GlobalOptions } from './cli-options.js';
import { ignoreBrokenStdout } from './broken-pipe.js';
import { callCard, resultCard } from './call-cards.js';

/**
 * Runs one tool call and prints the exact model-visible text. Exit status:
 * 0 for a normal result (whatever the command's own exit code), 1 for an
 * `isError` result.
 */
export function registerCallCommand(program: Command): void {
  program
    .command('call')
    .description('run one tool call and print the exact model-visible text (exit 1 for an error result)')
    .argument('<tool>', 'tool name, e.g. bash')
    .argument('[json]', 'arguments as a JSON object', '{}')
    .option('--card', "also print the tool's call and result cards (title, command, outcome) on stderr")
    .addHelpText(
      'after',
      `\nExample:\n  $ dsh-tools call bash '{"command":"ls -la","description":"List the workspace files"}' --workspace .`,
    )
    .action(async (tool: string, json: string, options: { card?: boolean }, command: Command) => {
      ignoreBrokenStdout();
      let args: unknown;
      try {
        args = JSON.parse(json);
      } catch (error) {
        process.stdout.write(`Error: invalid arguments: not valid JSON (${(error as Error).message})\n`);
        process.exitCode = 1;
        return;
      }
      // Loaded on demand so `--help` and other commands stay quick.
      const { hostFromOptions } = await import('./host-from-options.js');
      // The process ends right after the call: keep spill files so the printed paths stay readable,
      // and kill at the timeout (a command moved to a background task would die with the process).
      const { host, workspace } = await hostFromOptions(command.optsWithGlobals<GlobalOptions>(), (environment) => ({
        ...environment,
        executor: { ...environment.executor, keepSpills: true },
        bash: { ...environment.bash, onTimeout: 'kill' },
      }));
      const controller = new AbortController();
      const abort = () => controller.abort();
      process.once('SIGINT', abort);
      process.once('SIGTERM', abort);
      try {
        const session = host.openSession({ cwd: workspace });
        if (options.card) process.stderr.write(callCard(host.present(tool, args).call));
        const result = await session.call(tool, args, { signal: controller.signal });
        if (options.card) process.stderr.write(resultCard(host.present(tool, args, result).result));
        const text = result.content.map((block) => block.text).join('\n');
        process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
        process.exitCode = result.isError ? 1 : 0;
      } finally {
        process.off('SIGINT', abort);
        process.off('SIGTERM', abort);
        await host.dispose();
      }
    });
}
