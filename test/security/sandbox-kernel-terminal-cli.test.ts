// Issue 18 row 4: `dsh-tools call` run from an interactive shell on a terminal. A confined command that
// could reach that terminal would queue a line the user's shell then runs (TIOCSTI).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadPty } from '../../src/providers/backends/pty/pty-loader.js';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { tempWorkspace } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

/** Tries TIOCSTI on stdin/stdout/stderr and on /dev/tty, printing each errno. */
function injector(line: string): string {
  const perl = `for $fd (0, 1, 2) { open(my $h, "+<&=", $fd) or next; $c = "x"; print "fd$fd=", (ioctl($h, 0x5412, $c) ? 0 : $! + 0), "\\n" } ` +
    `if (open(my $t, "+<", "/dev/tty")) { for (split //, $ARGV[0]) { $c = $_; ioctl($t, 0x5412, $c) or do { print "tty=", $! + 0, "\\n"; exit } } print "tty=0\\n" } else { print "tty=none\\n" }`;
  return `perl -e '${perl}' '${line}'`;
}

describeWithBwrap(`sandbox kernel: the caller's terminal${NEEDS_BWRAP}`, () => {
  beforeAll(() => ensureBuilt(), 600_000);

  it('a confined command of `dsh-tools call` run from a terminal shell cannot queue input into that terminal', async () => {
    const load = await loadPty();
    if (!load.ok) throw new Error(load.reason);
    const ws = tempWorkspace('dsh-kernel-tty-');
    const injected = path.join(ws.dir, 'injected-into-caller');
    const term = load.module.spawn('/bin/bash', ['--norc', '--noprofile'], { cwd: ws.dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb' } });
    let screen = '';
    term.onData((data) => {
      screen += data;
    });
    const waitFor = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${text} on the terminal:\n${screen}`)), 60_000);
        const check = setInterval(() => {
          if (screen.includes(text)) {
            clearInterval(check);
            clearTimeout(timer);
            resolve();
          }
        }, 20);
      });
    try {
      const args = JSON.stringify({ command: injector(`touch ${injected}\n`), description: 'Probe' });
      term.write(`${process.execPath} ${MAIN_JS} --sandbox workspace-write call bash '${args.replace(/'/g, "'\\''")}'; echo CALL-END-$((6*7))\n`);
      await waitFor('CALL-END-42');
      // An injected line would run now, before this one.
      term.write('echo NEXT-$((6*7))\n');
      await waitFor('NEXT-42');
      expect(existsSync(injected)).toBe(false);
      expect(screen).toMatch(/tty=none|tty=1/);
      expect(screen).not.toMatch(/fd[012]=0/);
    } finally {
      term.kill();
      ws.remove();
    }
  }, 120_000);
});
