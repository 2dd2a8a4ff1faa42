import { DshHost } from '../../src/container/dsh-host.js';
import { bindPromptSection } from '../../src/core/contributions.js';
import { PluginModule } from '../../src/core/plugin-module.js';
import { renderPrompt } from '../../src/container/prompt-assembler.js';
import { echoToolModule, recorderModule } from '../support/echo-tool.js';

describe('prompt assembly', () => {
  it('sorts sections by order then name, drops empty ones and those of inactive tools', async () => {
    const host = new DshHost();
    try {
      await host.load(
        new PluginModule('sections', ({ bind }) => {
          bindPromptSection(bind, { name: 'b', order: 120, text: 'B' });
          bindPromptSection(bind, { name: 'a', order: 120, text: 'A' });
          bindPromptSection(bind, { name: 'first', order: 101, text: 'First' });
          bindPromptSection(bind, { name: 'blank', order: 100, text: '   ' });
          bindPromptSection(bind, { name: 'ghost', order: 100, text: 'Ghost', tool: 'missing' });
        }),
        echoToolModule(),
      );
      // The echo tool is pending: its section stays out.
      expect(host.prompt().sections.map((s) => s.name)).toEqual(['first', 'a', 'b']);

      await host.load(recorderModule());
      const prompt = host.prompt();
      expect(prompt.sections.map((s) => s.name)).toEqual(['first', 'a', 'b', 'tool:echo']);
      expect(renderPrompt(prompt)).toBe('First\n\nA\n\nB\n\nEcho carefully.');
    } finally {
      await host.dispose();
    }
  });

  it('carries the JSON Schema generated from the argument class', async () => {
    const host = new DshHost();
    try {
      await host.load(echoToolModule(), recorderModule());
      const [tool] = host.prompt().tools;
      expect(tool).toEqual({
        name: 'echo',
        description: 'Echoes text.',
        inputSchema: expect.objectContaining({
          type: 'object',
          required: ['text'],
          properties: {
            text: expect.objectContaining({ type: 'string', description: 'Text to echo back.' }),
            times: expect.objectContaining({ type: 'number', description: 'How many times.' }),
          },
        }),
      });
    } finally {
      await host.dispose();
    }
  });
});
