import type { Command } from 'commander';
import type { GlobalOptions } from './cli-options.js';
import { ignoreBrokenStdout } from './broken-pipe.js';

export function registerPromptCommand(program: Command): void {
  program
    .command('prompt')
    .description('print the assembled prompt sections and tool schemas, as the model sees them')
    .option('--json', 'print {"sections": [...], "tools": [...]} as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      ignoreBrokenStdout();
      // Loaded on demand so `--help` and other commands stay quick.
      const { hostFromOptions } = await import('./host-from-options.js');
      const { renderPrompt } = await import('../container/prompt-assembler.js');
      const { host } = await hostFromOptions(command.optsWithGlobals<GlobalOptions>());
      try {
        const prompt = host.prompt();
        if (options.json) {
          process.stdout.write(`${JSON.stringify(prompt, null, 2)}\n`);
          return;
        }
        process.stdout.write(`${renderPrompt(prompt)}\n`);
        for (const tool of prompt.tools) {
          process.stdout.write(`\n## tool ${tool.name}\n${tool.description}\n${JSON.stringify(tool.inputSchema, null, 2)}\n`);
        }
      } finally {
        await host.dispose();
      }
    });
}
