import { Container } from 'inversify';
import { ToolClass } from '../../../src/core/contributions.js';
import { PluginModule } from '../../../src/core/plugin-module.js';
import { PromptSection } from '../../../src/core/prompt-section.js';
import { EnvRegistry } from '../../../src/providers/policy/env/env-registry.js';
import { TerminalService } from '../../../src/providers/exec/terminal/terminal-service.js';
import { terminalModule } from '../../../src/providers/backends/pty/terminal.module.js';
import { BASH_PROMPT_TEXT } from '../../../src/tools/bash/bash-config.js';
import { persistentBashModule } from '../../../src/tools/persistent-bash/persistent-bash.module.js';
import { PersistentBashTool } from '../../../src/tools/persistent-bash/persistent-bash.tool.js';
import { plannerModule } from '../../../src/providers/policy/planner/planner.module.js';
import { fakeSession } from '../../support/fake-session.js';
import { processesWith, uniqueSleepArg, eventually } from '../../support/proc-helpers.js';
import { RecordingEnvRegistry } from './persistent-bash-fixture.js';

const envModule = () =>
  new PluginModule('env:test', ({ bind }) => {
    bind(EnvRegistry).toConstantValue(new RecordingEnvRegistry());
  });

describe('terminal and persistent bash modules', () => {
  it('bind the tool, its prompt sections and a working terminal service; unloading closes the shells', async () => {
    const container = new Container();
    const terminals = terminalModule();
    await container.load(terminals, plannerModule(), persistentBashModule({ maxOutputChars: 100 }), envModule());
    expect(container.getAll(ToolClass)).toContain(PersistentBashTool);
    const sections = container.getAll(PromptSection);
    expect(sections).toEqual(
      expect.arrayContaining([
        { name: 'tool:bash', order: 105, text: BASH_PROMPT_TEXT, tool: 'bash' },
        expect.objectContaining({ name: 'tool:bash-persistent', order: 106, tool: 'bash' }),
      ]),
    );
    const tool = container.get(PersistentBashTool);
    expect(tool.description()).toContain('100 characters');
    const session = fakeSession('m', { cwd: '/tmp' });
    const arg = uniqueSleepArg();
    const result = await tool.run({ command: `sleep ${arg} & echo ok` }, { session, signal: new AbortController().signal, callId: 'c' });
    expect(result.content[0]!.text).toMatch(/ok$/);
    await eventually(() => processesWith(arg), (pids) => pids.length === 1);
    expect(container.get(TerminalService)).toBe(container.get(TerminalService));
    await container.unload(terminals);
    expect(processesWith(arg)).toEqual([]);
  });

  it('reject a bad config at composition', () => {
    expect(() => persistentBashModule({ timeoutMs: -1 })).toThrow('invalid persistent bash config timeoutMs');
    expect(() => terminalModule({ stdinProbeQuietMs: 0 })).toThrow('invalid terminal config stdinProbeQuietMs');
  });

  it('reject an unknown key the way every provider config does (a misspelt limit must not fall back to its default)', () => {
    expect(() => persistentBashModule({ timeoutMS: 5 } as never)).toThrow('invalid persistent bash config: timeoutMS is not a known key');
    expect(() => terminalModule({ scrollback: 5 } as never)).toThrow('invalid terminal config: scrollback is not a known key');
    expect(() => terminalModule('x' as never)).toThrow('invalid terminal config: config must be an object, got "x"');
  });

  it('reject timeouts a timer cannot hold (Node would fire them at once)', () => {
    expect(() => persistentBashModule({ timeoutMs: 2 ** 31 })).toThrow(
      'invalid persistent bash config timeoutMs: expected a positive number of milliseconds up to 2147483647, got 2147483648',
    );
    expect(() => terminalModule({ startupTimeoutMs: 3e9 })).toThrow(
      'invalid terminal config startupTimeoutMs: expected a positive number of milliseconds up to 2147483647, got 3000000000',
    );
    expect(() => persistentBashModule({ timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});
