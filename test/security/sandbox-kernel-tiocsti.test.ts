// Issue 18 row 4: pushing input into a terminal from inside the sandbox (TIOCSTI, TIOCLINUX).
// The persistent shell's command holds its PTY: before the fix, injected text ran as the next command line.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { bash, KernelHosts } from './support/sandbox-kernel-hosts.js';

/** Perl that pushes `text` into the terminal on stdin one byte at a time and prints how it went. */
const inject = (text: string, request = 0x5412): string =>
  `perl -e 'for (split //, $ARGV[0]) { $c = $_; unless (ioctl(STDIN, ${request}, $c)) { print "refused errno=", $! + 0, "\\n"; exit } } print "injected\\n"' '${text}'`;

describeWithBwrap(`sandbox kernel: terminal injection${NEEDS_BWRAP}`, () => {
  const hosts = new KernelHosts();
  afterEach(() => hosts.disposeAll());

  it('persistent shell: TIOCSTI into its own terminal is refused with EPERM and nothing runs', async () => {
    const { session, workspace } = await hosts.session('persistent', 'workspace-write');
    const marker = path.join(workspace, 'injected-by-tiocsti');
    const out = await bash(session, inject(`touch ${marker}\n`));
    expect(out).toContain('refused errno=1');
    // The next call is where an injected line would have run.
    expect(await bash(session, 'echo next')).toContain('next');
    expect(existsSync(marker)).toBe(false);
  });

  it('persistent shell: TIOCLINUX (selection paste) is refused with EPERM', async () => {
    const { session } = await hosts.session('persistent', 'workspace-write');
    expect(await bash(session, inject('\u0002', 0x541c))).toContain('refused errno=1');
  });

  it('one-shot: the command has no controlling terminal to reach, and TIOCSTI on any descriptor is refused', async () => {
    const { session } = await hosts.session('oneshot', 'workspace-write');
    const out = await bash(session, `{ exec 3</dev/tty && echo HAS-TTY; } 2>/dev/null; ${inject('x')}`);
    expect(out).not.toContain('HAS-TTY');
    expect(out).toContain('refused errno=1');
  });
});
