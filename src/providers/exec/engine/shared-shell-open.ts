import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ShellLaunch } from '../process/shell-status-launcher.js';
import { MarkerShell, type MarkerShellSpec } from '../terminal/marker-shell.js';
import { newToken } from '../terminal/marker-protocol.js';
import type { ContainerEngine } from './container-engine.js';
import { killHeldForeground } from './held-foreground-kill.js';
import { HELD_FIFOS } from './held-terminal-program.js';
import { startHeldTerminal } from './held-terminal.js';
import type { LiveContainer } from './session-containers.js';
import { heldTerminalRuns, SharedHeldChannel } from './shared-held-channel.js';
import { SharedShellFiles, type SharedShellRecord } from './shared-shell-files.js';
import { SharedShell } from './shared-shell.js';

interface SharedShellOpen {
  readonly engine: ContainerEngine;
  readonly container: LiveContainer;
  /** For a new shell: the launcher, its environment and terminal size. */
  readonly launch: ShellLaunch;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  readonly user?: string;
  /** A new shell even when the recorded one runs (`restart`): the recorded one is killed. */
  readonly fresh: boolean;
  readonly localEngine: boolean;
  readonly shellSpec: MarkerShellSpec;
}

/**
 * A shared session's persistent shell (docs/shared-sessions.md#the-persistent-shell):
 * the one its record names when that still runs, else a new held terminal,
 * set up here and recorded for the other replicas. Under the shell's lock,
 * so two replicas opening at once make one shell. Says why not when the
 * container cannot hold a terminal.
 */
export async function openSharedShell(open: SharedShellOpen): Promise<SharedShell | 'no-script' | 'unreachable'> {
  const { engine, container } = open;
  const files = new SharedShellFiles(container.dir);
  const unlock = await files.lock();
  try {
    const recorded = files.readRecord();
    if (recorded !== undefined) {
      const dir = terminalDir(container, recorded);
      if (!open.fresh && heldTerminalRuns(dir)) return new SharedShell(sharedSpec(open, files));
      await engine.killTagged(container.id, recorded.tag, 'KILL').catch(() => 0);
      files.removeRecord();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const tag = randomBytes(8).toString('hex');
    const terminal = await startHeldTerminal({
      engine,
      containerId: container.id,
      sharedDir: container.dir,
      tag,
      argv: open.launch.argv,
      env: open.env,
      cols: open.cols,
      rows: open.rows,
      ...(open.user === undefined ? {} : { user: open.user }),
    });
    if (typeof terminal === 'string') return terminal;
    // From here on every replica, this one included, holds it through the FIFOs by name.
    terminal.letGo();
    const record: SharedShellRecord = { tag, key: open.launch.key, secret: newToken(), pid: terminal.containerPid };
    const channel = channelOver(open, record);
    channel.write(open.launch.keyLine);
    channel.attach();
    let shell: MarkerShell;
    try {
      shell = await MarkerShell.start(channel, { ...open.shellSpec, secret: record.secret });
    } catch (error) {
      fs.rmSync(terminalDir(container, record), { recursive: true, force: true });
      throw error;
    } finally {
      channel.detach();
    }
    files.writeRecord(record);
    const gen = newToken();
    files.writeState({ gen, busy: false });
    return new SharedShell(sharedSpec(open, files), { shell, channel, gen });
  } finally {
    unlock();
  }
}

/** What a `SharedShell` does with the shell the session's record names when it acts (another replica may have replaced it: a restart). */
function sharedSpec(open: SharedShellOpen, files: SharedShellFiles): ConstructorParameters<typeof SharedShell>[0] {
  const current = (): SharedShellRecord => {
    const record = files.readRecord();
    if (record === undefined) throw new Error('the session has no persistent shell');
    return record;
  };
  return {
    files,
    runs: () => {
      const record = files.readRecord();
      return record !== undefined && heldTerminalRuns(terminalDir(open.container, record));
    },
    adopt: async (running) => {
      let channel: SharedHeldChannel | undefined;
      try {
        const record = current();
        channel = channelOver(open, record);
        channel.attach();
        return { shell: await MarkerShell.start(channel, { ...open.shellSpec, secret: record.secret }, running === undefined ? {} : { running }), channel };
      } catch (error) {
        channel?.release();
        throw error;
      }
    },
    killForeground: async () => {
      const record = current();
      // A ^C first, as a user would type it: it also reaches bash itself in a builtin's read, and drops a line cut in half.
      typeInto(path.join(terminalDir(open.container, record), HELD_FIFOS.input), '\x03');
      await killHeldForeground(open.engine, open.container.id, record.pid, open.user);
    },
  };
}

function channelOver(open: SharedShellOpen, record: SharedShellRecord): SharedHeldChannel {
  return new SharedHeldChannel({
    engine: open.engine,
    containerId: open.container.id,
    dir: terminalDir(open.container, record),
    tag: record.tag,
    key: record.key,
    containerPid: record.pid,
    localEngine: open.localEngine,
  });
}

function terminalDir(container: LiveContainer, record: SharedShellRecord): string {
  return path.join(container.dir, `sh-${record.tag}`);
}

/** Writes `text` into the terminal's input FIFO now (read-write: never blocks for want of a reader), before anything written later. */
function typeInto(fifo: string, text: string): void {
  const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}
