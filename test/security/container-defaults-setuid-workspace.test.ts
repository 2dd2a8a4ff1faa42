// Attack: a root container leaves a privilege-bearing file in the host workspace — a setuid/setgid-root
// binary, a device node, a file with capabilities — for a host user to run or open.
// `nosuid` on the container's bind would not help: the bit lives on the host's inode. What stops it:
// the seccomp profile refuses setuid/setgid modes, and MKNOD and SETFCAP are dropped.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { containerHost, run, tool } from './support/container-defaults-kit.js';

const SET_ID_BITS = 0o6000;
/** The command's `echo "exit $?"` line, then the refusal on stderr. */
const REFUSED = /^exit 1\n\[stderr\]\n[\s\S]*Operation not permitted/;

describeWithEngine(`container defaults: no setuid, device or capability file reaches the host workspace${NEEDS_ENGINE}`, () => {
  let env: Awaited<ReturnType<typeof containerHost>>;
  let session: ReturnType<typeof env.host.openSession>;
  beforeAll(async () => {
    env = await containerHost({}, { tools: ['perl', 'mknod', 'setcap'] });
    session = env.host.openSession({ id: 'setuid-ws', cwd: env.workspace });
  });
  afterAll(async () => {
    await session.dispose();
    await env.dispose();
  });
  const hostMode = (name: string) => statSync(path.join(env.workspace, name)).mode;

  it.each([
    ['chmod 4755 (setuid root)', 'cp /usr/bin/sleep suid && chmod 4755 suid', 'suid'],
    ['chmod u+s', 'cp /usr/bin/sleep us && chmod u+s us', 'us'],
    ['chmod 2755 (setgid root)', 'cp /usr/bin/sleep sgid && chmod 2755 sgid', 'sgid'],
    ['open(O_CREAT) with mode 04755', `${tool('perl')} -e 'sysopen(F, "made", 65, 04755) or die "open: $!\\n"'`, 'made'],
  ])('%s leaves no set-id bit on the host', async (_name, command, file) => {
    const output = await run(session, `${command}; echo "exit $?"`);
    expect(output).toMatch(REFUSED);
    if (existsSync(path.join(env.workspace, file))) expect(hostMode(file) & SET_ID_BITS).toBe(0);
  });

  it('fchmodat2 (a syscall newer than the engine\'s libseccomp) does not get around the mode filter', async () => {
    const output = await run(session, `touch viaat2 && ${tool('perl')} -e 'my $p = "viaat2"; syscall(452, -100, $p, 04755, 0) == 0 ? print "changed\\n" : print "refused: $!\\n"'`);
    expect(output).toMatch(/^refused: (Operation not permitted|Function not implemented)$/);
    expect(hostMode('viaat2') & SET_ID_BITS).toBe(0);
  });

  it('a block device node of the host disk cannot be created', async () => {
    const output = await run(session, `${tool('mknod')} disk b 8 0; echo "exit $?"`);
    expect(output).toMatch(REFUSED);
    expect(existsSync(path.join(env.workspace, 'disk'))).toBe(false);
  });

  it('a file capability (cap_setuid+ep) cannot be set', async () => {
    const output = await run(session, `cp /usr/bin/sleep capfile && ${tool('setcap')} cap_setuid+ep capfile; echo "exit $?"`);
    expect(output).toMatch(REFUSED);
    expect(execFileSync('getcap', [path.join(env.workspace, 'capfile')], { encoding: 'utf8' }).trim()).toBe('');
  });

  it('ordinary modes still work (chmod 755, 600, +x)', async () => {
    expect(await run(session, 'touch plain && chmod 755 plain && chmod 600 plain && chmod +x plain && stat -c %a plain')).toBe('711');
    expect(hostMode('plain') & 0o7777).toBe(0o711);
  });
});
