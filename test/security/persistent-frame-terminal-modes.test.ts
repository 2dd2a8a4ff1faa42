import { ptyShells } from '../support/pty-shells.js';

// Terminal modes the frame relies on (canonical lines, no echo, signals)
// are the host's: a command that changes them must not make the shell read
// EOF at its prompt (non-canonical, MIN 0 TIME 0) and exit, nor lose the
// next call (issue 33 item 5). Looped: the failure was 1 run in 5.

const { open, send } = ptyShells('dsh-tty-modes-');

const ATTACKS = ['stty -icanon min 0 time 0 -isig', 'stty raw', 'stty -icanon min 0 time 0 -isig echo; echo changed'];

describe('terminal modes a command changes are restored before the next call (real PTY)', () => {
  it.each(ATTACKS)('after `%s` the next calls run, 25 times over', async (attack) => {
    const shell = await open();
    for (let round = 0; round < 25; round++) {
      const first = await send(shell, attack);
      expect(first.end).toEqual({ kind: 'completed', exitCode: 0 });
      const next = await send(shell, `echo next-${round}`);
      expect(next).toMatchObject({ output: `next-${round}\n`, end: { kind: 'completed', exitCode: 0 } });
    }
  });

  it('the next call sees the modes the host started with: canonical, no echo, signals on', async () => {
    const shell = await open();
    await send(shell, 'stty -icanon min 0 time 0 -isig echo');
    const modes = (await send(shell, 'stty -a </dev/tty | tr " " "\\n" | grep -xE -- "-?(icanon|isig|echo)" | sort')).output;
    expect(modes).toBe('-echo\nicanon\nisig\n');
  });
});
