import type { Command } from 'commander';
import { escapeForDisplay, escapeJsonForDisplay } from '../core/display-text.js';
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
          // The same JSON value, with the characters JSON.stringify leaves raw (C1, bidi) escaped too.
          process.stdout.write(`${escapeJsonForDisplay(JSON.stringify(prompt, null, 2))}\n`);
          return;
        }
        // Sections and descriptions come from configuration and plugins: escaped, line breaks kept.
        const shown = (text: string) => escapeForDisplay(text, { keepNewlines: true });
        process.stdout.write(`${shown(renderPrompt(prompt))}\n`);
        for (const tool of prompt.tools) {
          const schema = escapeJsonForDisplay(JSON.stringify(tool.inputSchema, null, 2));
          process.stdout.write(`\n## tool ${shown(tool.name)}\n${shown(tool.description)}\n${schema}\n`);
        }
      } finally {
        await host.dispose();
      }
    });
}
