// Stopping a container exec whose processes a loaded engine has not started yet: the kill is repeated until the exec ends.
import { PassThrough } from 'node:stream';
import { ContainerCommand } from '../../../../src/providers/exec/engine/container-command.js';
import { WRAPPER_TAG_SUFFIX } from '../../../../src/providers/exec/engine/container-exec-wrapper.js';
import type { ContainerEngine, ExecChannel, ExecExit } from '../../../../src/providers/exec/engine/container-engine.js';
import { DEFAULT_EXECUTOR_CONFIG } from '../../../../src/providers/exec/shell/shell-executor.js';
import { SpillDirectory } from '../../../../src/providers/exec/shell/spill-directory.js';
import { handMade } from '../../../support/hand-made-spec.js';

/** An engine whose exec ends only when the third KILL finds its processes. */
function lateEngine(): { engine: ContainerEngine; signals: string[] } {
  const signals: string[] = [];
  let end!: (exit: ExecExit) => void;
  const exited = new Promise<ExecExit>((resolve) => (end = resolve));
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const channel: ExecChannel = {
    stdout,
    stderr,
    exited,
    write: () => undefined,
    resize: async () => undefined,
    hostPid: async () => undefined,
    detach: () => undefined,
  };
  const engine = {
    exec: async () => channel,
    killTagged: async (_id: string, tag: string, signal: 'TERM' | 'KILL') => {
      // The wrapper's own tag (the command's plus `w`) is spared until the kills have been retried.
      if (tag.endsWith(WRAPPER_TAG_SUFFIX)) {
        signals.push(`${signal} wrapper`);
        return 0;
      }
      signals.push(signal);
      if (signals.filter((s) => s === 'KILL').length < 3) return 0;
      stdout.end();
      stderr.end();
      end({ exitCode: 137 });
      return 1;
    },
  } as unknown as ContainerEngine;
  return { engine, signals };
}

test('a timeout that finds nothing to signal yet kills again until the exec has ended', async () => {
  const { engine, signals } = lateEngine();
  const spills = new SpillDirectory('dsh-ct-stop-');
  try {
    const command = await ContainerCommand.start({
      engine,
      containerId: 'c1',
      spec: handMade({ command: 'sleep 30', workdir: '/', timeoutMs: 20 }),
      env: {},
      config: { ...DEFAULT_EXECUTOR_CONFIG, graceMs: 20 },
      spills,
      timeoutMs: 20,
    });
    const exit = await command.exited;
    expect(exit).toEqual({ exitCode: null, signal: 'SIGKILL', reason: 'timeout' });
    expect(signals).toEqual(['TERM', 'KILL', 'KILL', 'KILL', 'KILL wrapper']);
  } finally {
    await spills.remove();
  }
});

test('an exec whose stream never ends after its processes are gone is cut from the host side: the call still ends', async () => {
  let detached = 0;
  let end!: (exit: ExecExit) => void;
  const exited = new Promise<ExecExit>((resolve) => (end = resolve));
  const channel: ExecChannel = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    exited,
    write: () => undefined,
    resize: async () => undefined,
    hostPid: async () => undefined,
    // As the Docker engine: destroying the stream ends the exec's wait, status unknown.
    detach: () => {
      detached++;
      end({ exitCode: null });
    },
  };
  const engine = { exec: async () => channel, killTagged: async () => 0 } as unknown as ContainerEngine;
  const spills = new SpillDirectory('dsh-ct-detach-');
  try {
    const command = await ContainerCommand.start({
      engine,
      containerId: 'c1',
      spec: handMade({ command: 'true', workdir: '/', timeoutMs: 20 }),
      env: {},
      config: { ...DEFAULT_EXECUTOR_CONFIG, graceMs: 20 },
      spills,
      timeoutMs: 20,
    });
    expect(await command.exited).toEqual({ exitCode: null, signal: null, reason: 'timeout' });
    expect(detached).toBe(1);
  } finally {
    await spills.remove();
  }
});
