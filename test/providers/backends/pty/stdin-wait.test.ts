import { BashPtyBackend } from '../../../../src/providers/backends/pty/bash-pty-backend.js';
import type { MarkerShell } from '../../../../src/providers/exec/terminal/marker-shell.js';
import type { SendResult } from '../../../../src/providers/exec/terminal/terminal-service.js';
import { eventually } from '../../../support/proc-helpers.js';

const backend = new BashPtyBackend();
let shell: MarkerShell;

const send = (command: string): Promise<SendResult> => shell.send(command, { timeoutMs: 20_000 });

beforeEach(async () => {
  shell = (await backend.open({ cwd: '/tmp' })) as MarkerShell;
});

afterEach(() => shell.close());

describe('interactive stdin detection (real PTY)', () => {
  it('returns early from `read x`; the next send answers it', async () => {
    const waiting = await send('echo asking; read x; echo "got $x"');
    expect(waiting).toMatchObject({ output: 'asking\n', end: { kind: 'waiting-for-input' } });
    const answered = await send('hello there');
    expect(answered).toMatchObject({
      output: 'got hello there\n',
      end: { kind: 'completed', exitCode: 0 },
      continuation: { inputDelivered: true },
    });
    expect((await send('echo "$x"')).output).toBe('hello there\n');
  });

  it('returns early from a read of /dev/tty (how password prompts and pagers read)', async () => {
    expect((await send('read -r line </dev/tty; echo "line=$line"')).end).toEqual({ kind: 'waiting-for-input' });
    expect((await send('typed')).output).toBe('line=typed\n');
  });

  it('returns early from cat with no input; ^C interrupts it and the shell stays usable', async () => {
    expect((await send('cat')).end).toEqual({ kind: 'waiting-for-input' });
    const interrupted = await send('^C');
    expect(interrupted.end).toEqual({ kind: 'completed', exitCode: 130 });
    expect((await send('echo usable')).output).toBe('usable\n');
  });

  it('returns early from a python3 REPL and talks to it', async () => {
    const started = await send('python3');
    expect(started.end).toEqual({ kind: 'waiting-for-input' });
    expect(started.output).toContain('>>> ');
    const answer = await send('print(6 * 7)');
    expect(answer.end).toEqual({ kind: 'waiting-for-input' });
    expect(answer.output).toContain('42\n');
    expect((await send('^D')).end).toEqual({ kind: 'completed', exitCode: 0 });
  });

  it('returns early from an event-loop REPL (node) waiting on the terminal', async () => {
    const started = await send('node');
    expect(started.end).toEqual({ kind: 'waiting-for-input' });
    const answer = await send('6 * 7');
    expect(answer.end).toEqual({ kind: 'waiting-for-input' });
    expect(answer.output).toContain('42');
    expect((await send('.exit')).end).toEqual({ kind: 'completed', exitCode: 0 });
  });

  it('does not return early from an event loop that does not read the terminal', async () => {
    const result = await send('node -e "setTimeout(() => console.log(\'timer done\'), 1500)"');
    expect(result).toMatchObject({ output: 'timer done\n', end: { kind: 'completed', exitCode: 0 } });
  });

  it('does not return early from a quiet command that is not reading', async () => {
    const result = await send('sleep 2; echo slept');
    expect(result).toMatchObject({ output: 'slept\n', end: { kind: 'completed', exitCode: 0 } });
  });

  it('does not deliver input to a command that finished meanwhile, and does not run it', async () => {
    const waiting = await send('timeout 1 cat; echo "cat ended $?"');
    expect(waiting.end).toEqual({ kind: 'waiting-for-input' });
    await eventually(() => shell.commandRunning, (running) => !running);
    const result = await send('echo should-not-run');
    expect(result).toMatchObject({
      output: 'cat ended 124\n',
      end: { kind: 'completed', exitCode: 0 },
      continuation: { inputDelivered: false },
    });
    expect((await send('echo fresh')).output).toBe('fresh\n');
  });
});
