import fc from 'fast-check';
import type { CallPlanner } from '../../../src/providers/policy/planner/call-planner.js';
import type { ToolResult } from '../../../src/core/tool-contract.js';
import { BashPtyBackend } from '../../../src/providers/backends/pty/bash-pty-backend.js';
import { LocalTerminalService } from '../../../src/providers/exec/terminal/local-terminal-service.js';
import {
  CANCELLED_NOTICE,
  FRAME_LOST_NOTICE,
  LOST_PREFIX_NOTICE,
  RESTARTED_NOTICE,
  NOT_DELIVERED_NOTICE,
  RESET_NOTICE,
  presentPersistentResult,
  renderSend,
} from '../../../src/tools/persistent-bash/persistent-bash-render.js';
import { PersistentBashTool } from '../../../src/tools/persistent-bash/persistent-bash.tool.js';
import { RecordingEnvRegistry } from './persistent-bash-fixture.js';

const ctx = { maxOutputChars: 10, timeoutMs: 1000, durationMs: 5, freshShell: false };
const text = (result: ToolResult) => result.content[0]!.text;

/** A planner these presentation tests never reach. */
const NO_PLANNER = {} as CallPlanner;

describe('persistent bash rendering', () => {
  it('says when the terminal already dropped the beginning, and clips what remains', () => {
    const result = renderSend(
      { output: 'tail-of-the-output', lostPrefix: true, droppedChars: 2, end: { kind: 'completed', exitCode: 0 } },
      ctx,
    );
    expect(text(result)).toBe(`${LOST_PREFIX_NOTICE}\ntail-of-th\n[output clipped: 10 more characters not shown]`);
  });

  it('reports input that was not delivered to a command that had finished', () => {
    const result = renderSend(
      { output: 'rest\n', lostPrefix: false, end: { kind: 'completed', exitCode: 2 }, continuation: { inputDelivered: false } },
      ctx,
    );
    expect(text(result)).toBe(`rest\n${NOT_DELIVERED_NOTICE}\n[exit code: 2]`);
  });

  it('writes [shell exited] when the shell left without a code', () => {
    const result = renderSend(
      { output: '', lostPrefix: false, end: { kind: 'shell-exited', exitCode: null, signal: null } },
      ctx,
    );
    expect(text(result)).toBe(`(no output)\n[shell exited]\n${RESET_NOTICE}`);
  });

  it('puts restart and cancel notices first and a lost frame with the reset last; the card drops the trailer', () => {
    const result = renderSend({ output: 'partial\n', lostPrefix: false, end: { kind: 'framing-lost' } }, {
      ...ctx,
      restarted: true,
      afterCancel: true,
    });
    expect(text(result)).toBe(`${RESTARTED_NOTICE}\n${CANCELLED_NOTICE}\npartial\n${FRAME_LOST_NOTICE}\n${RESET_NOTICE}`);
    expect(result.value).toMatchObject({ frameLost: true, shellReset: true, exitCode: null });
    expect(presentPersistentResult(result)?.body).toBe(`${RESTARTED_NOTICE}\n${CANCELLED_NOTICE}\npartial`);
  });

  it('presents a result without the markers the renderer wrote', () => {
    const exited = renderSend(
      { output: 'bye\n[exit code: 9]\n', lostPrefix: false, end: { kind: 'shell-exited', exitCode: 7, signal: null } },
      { ...ctx, maxOutputChars: 100 },
    );
    expect(presentPersistentResult(exited)).toEqual({ body: 'bye\n[exit code: 9]', exitCode: 7, timedOut: false, isError: false });
    const clean = renderSend({ output: 'looks like\n[exit code: 3]', lostPrefix: false, end: { kind: 'completed', exitCode: 0 } }, {
      ...ctx,
      maxOutputChars: 100,
    });
    expect(presentPersistentResult(clean)?.body).toBe('looks like\n[exit code: 3]');
    const timedOut = renderSend({ output: 'x', lostPrefix: false, end: { kind: 'timeout' } }, ctx);
    expect(presentPersistentResult(timedOut)).toMatchObject({ body: 'x', timedOut: true });
  });

  it('presentCall and presentResult never throw and return undefined for malformed input', () => {
    const tool = new PersistentBashTool(new LocalTerminalService([new BashPtyBackend()]), new RecordingEnvRegistry(), NO_PLANNER);
    expect(tool.presentCall({ command: 'ls', description: 'List files' })).toEqual({
      title: 'List files',
      command: 'ls',
      description: 'List files',
    });
    expect(tool.presentCall({ command: '  ' })).toBeUndefined();
    expect(tool.presentCall(null)).toBeUndefined();
    expect(tool.presentResult({} as ToolResult)).toBeUndefined();
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(() => tool.presentCall(value)).not.toThrow();
        expect(() => tool.presentResult(value as ToolResult)).not.toThrow();
        expect(() => tool.presentResult({ content: [{ type: 'text', text: 'x' }], value } as ToolResult)).not.toThrow();
      }),
    );
  });

  it('describes itself from config', () => {
    const env = new RecordingEnvRegistry();
    const terminals = new LocalTerminalService([]);
    expect(new PersistentBashTool(terminals, env, NO_PLANNER, { description: 'custom' }).description()).toBe('custom');
    expect(new PersistentBashTool(terminals, env, NO_PLANNER, { maxOutputChars: 500 }).description()).toContain('500 characters');
  });
});
