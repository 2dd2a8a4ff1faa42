import { BashPtyBackend } from '../../../../src/providers/backends/pty/bash-pty-backend.js';
import { LocalTerminalService } from '../../../../src/providers/exec/terminal/local-terminal-service.js';
import type {
  PtySession,
  SendOptions,
  SendResult,
  TerminalBackend,
  TerminalOpenOptions,
} from '../../../../src/providers/exec/terminal/terminal-service.js';
import { fakeSession } from '../../../support/fake-session.js';
import { eventually, isAlivePid, processesWith, uniqueSleepArg } from '../../../support/proc-helpers.js';

/** A PTY that records what it was sent. */
class ScriptedPty implements PtySession {
  readonly pid = 0;
  alive = true;
  closed = 0;
  readonly log: string[] = [];

  async send(command: string, _options: SendOptions): Promise<SendResult> {
    this.log.push(command);
    return { output: command, lostPrefix: false, end: { kind: 'completed', exitCode: 0 } };
  }

  async close(): Promise<void> {
    this.closed++;
    this.alive = false;
  }
}

class ScriptedBackend implements TerminalBackend {
  readonly opened: ScriptedPty[] = [];
  readonly options: TerminalOpenOptions[] = [];
  constructor(readonly type = 'scripted') {}
  async open(options: TerminalOpenOptions): Promise<PtySession> {
    this.options.push(options);
    const pty = new ScriptedPty();
    this.opened.push(pty);
    return pty;
  }
}

describe('LocalTerminalService', () => {
  it('rejects an unknown backend type with the stable message', async () => {
    const service = new LocalTerminalService([new ScriptedBackend()]);
    await expect(service.open(fakeSession('a'), 'nope', { cwd: '/' })).rejects.toThrow(
      'no PTY backend registered for "nope"',
    );
    await expect(new LocalTerminalService(undefined).open(fakeSession('a'), 'shell', { cwd: '/' })).rejects.toThrow(
      'no PTY backend registered for "shell"',
    );
  });

  it('refuses two backends of one type', () => {
    expect(() => new LocalTerminalService([new ScriptedBackend('x'), new ScriptedBackend('x')])).toThrow(
      'two PTY backends registered for "x"',
    );
  });

  it('fences every operation to the owner: a foreign id reads as unknown', async () => {
    const backend = new ScriptedBackend();
    const service = new LocalTerminalService([backend]);
    const [owner, other] = [fakeSession('owner'), fakeSession('other')];
    const id = await service.open(owner, 'scripted', { cwd: '/' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(service.isAlive(owner, id)).toBe(true);
    expect(service.isAlive(other, id)).toBe(false);
    await expect(service.send(other, id, 'x', { timeoutMs: 1000 })).rejects.toThrow(`unknown terminal session "${id}"`);
    await expect(service.close(other, id)).rejects.toThrow(`unknown terminal session "${id}"`);
    expect(backend.opened[0]!.log).toEqual([]);
    expect(backend.opened[0]!.closed).toBe(0);
  });

  it('passes sends through without queueing them: the PTY refuses an overlapping send, the first runs on', async () => {
    const service = new LocalTerminalService([new BashPtyBackend()]);
    const owner = fakeSession('o');
    try {
      const id = await service.open(owner, 'shell', { cwd: '/tmp' });
      // The first send attaches synchronously: the second one overlaps it whatever the timing.
      const first = service.send(owner, id, 'sleep 0.2; echo first', { timeoutMs: 20_000 });
      await expect(service.send(owner, id, 'echo second', { timeoutMs: 20_000 })).rejects.toThrow(
        'a command is already running on this PTY',
      );
      expect(await first).toMatchObject({ output: 'first\n', end: { kind: 'completed', exitCode: 0 } });
      expect((await service.send(owner, id, 'echo third', { timeoutMs: 20_000 })).output).toBe('third\n');
    } finally {
      await service.dispose();
    }
  });

  it('closes only the disposed owner’s PTYs and refuses opens for it afterwards', async () => {
    const backend = new ScriptedBackend();
    const service = new LocalTerminalService([backend]);
    const [a, b] = [fakeSession('a'), fakeSession('b')];
    await service.open(a, 'scripted', { cwd: '/' });
    const idB = await service.open(b, 'scripted', { cwd: '/' });
    await a.dispose();
    expect(backend.opened.map((p) => p.closed)).toEqual([1, 0]);
    expect(service.isAlive(b, idB)).toBe(true);
    await expect(service.open(a, 'scripted', { cwd: '/' })).rejects.toThrow('session a is disposed');
    await service.dispose();
    expect(backend.opened.map((p) => p.closed)).toEqual([1, 1]);
    await expect(service.open(b, 'scripted', { cwd: '/' })).rejects.toThrow('the terminal service is disposed');
  });

  it('owner disposal kills a background job started in a real shell, and the shell', async () => {
    const service = new LocalTerminalService([new BashPtyBackend()]);
    const owner = fakeSession('real');
    const arg = uniqueSleepArg();
    const id = await service.open(owner, 'shell', { cwd: '/tmp' });
    const result = await service.send(owner, id, `sleep ${arg} & echo "$$"`, { timeoutMs: 20_000 });
    const shellPid = Number(result.output.trim().split('\n').pop());
    await eventually(() => processesWith(arg), (pids) => pids.length === 1);
    await owner.dispose();
    expect(processesWith(arg)).toEqual([]);
    expect(isAlivePid(shellPid)).toBe(false);
    expect(service.isAlive(owner, id)).toBe(false);
    await service.dispose();
  });

  it('service disposal closes every open shell', async () => {
    const service = new LocalTerminalService([new BashPtyBackend()]);
    const args = [uniqueSleepArg(), uniqueSleepArg(), uniqueSleepArg()];
    for (const [i, arg] of args.entries()) {
      const owner = fakeSession(`s${i}`);
      const id = await service.open(owner, 'shell', { cwd: '/tmp' });
      await service.send(owner, id, `sleep ${arg} &`, { timeoutMs: 20_000 });
    }
    await eventually(() => args.flatMap(processesWith), (pids) => pids.length === 3);
    await service.dispose();
    expect(args.flatMap(processesWith)).toEqual([]);
  });
});
