// Attack surface of a root session container: Docker's default capabilities (NET_RAW among them),
// new privileges through setuid binaries, new namespaces. Now every capability but six is dropped,
// no-new-privileges is set for every process (one-shot and persistent), and the seccomp profile is on.
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { containerHost, run, tool } from './support/container-defaults-kit.js';

/** CHOWN(0) DAC_OVERRIDE(1) FOWNER(3) KILL(5) SETGID(6) SETUID(7). */
const KEPT_MASK = '00000000000000eb';
const STATUS = "grep -E '^(CapBnd|CapEff|CapPrm|NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\\t' ' '";
const EXPECTED_STATUS = [`CapPrm: ${KEPT_MASK}`, `CapEff: ${KEPT_MASK}`, `CapBnd: ${KEPT_MASK}`, 'NoNewPrivs: 1', 'Seccomp: 2'].join('\n');

describeWithEngine(`container defaults: capabilities, no-new-privileges, seccomp${NEEDS_ENGINE}`, () => {
  it.each(['oneshot', 'persistent'] as const)('%s: only the six named capabilities, NoNewPrivs 1, a seccomp filter', async (shell) => {
    const { host, workspace, dispose } = await containerHost({}, { shell });
    const session = host.openSession({ id: `caps-${shell}`, cwd: workspace });
    try {
      const output = await run(session, STATUS);
      expect(output.replace(/\n\[exit code: 0\]$/, '')).toBe(EXPECTED_STATUS);
    } finally {
      await session.dispose();
      await dispose();
    }
  }, 60_000);

  describe('with host tools bound in', () => {
    let env: Awaited<ReturnType<typeof containerHost>>;
    let session: ReturnType<typeof env.host.openSession>;
    beforeAll(async () => {
      env = await containerHost({}, { tools: ['perl', 'chown', 'unshare'] });
      session = env.host.openSession({ id: 'caps-tools', cwd: env.workspace });
    });
    afterAll(async () => {
      await session.dispose();
      await env.dispose();
    });

    it('NET_RAW is gone: a raw ICMP socket (ping) is refused', async () => {
      expect(await run(session, `${tool('perl')} -e 'socket(my $s, 2, 3, 1) ? print "raw socket open\\n" : print "refused: $!\\n"'`)).toBe(
        'refused: Operation not permitted',
      );
    });

    it('a new user namespace (every capability back inside it) is refused', async () => {
      expect(await run(session, `${tool('unshare')} -U true; echo "exit $?"`)).toMatch(/^exit 1\n\[stderr\]\n.*Operation not permitted/);
    });

    it('root shell work still runs: chown to another user, switching user, killing that user\'s process', async () => {
      expect(await run(session, `touch owned && ${tool('chown')} 1000:1000 owned && stat -c %u:%g owned`)).toBe('1000:1000');
      // DAC_OVERRIDE writes a mode-000 file of another user; FOWNER changes its mode back.
      expect(await run(session, 'chmod 000 owned && echo data > owned && chmod 644 owned && cat owned && stat -c "%a %u" owned')).toBe('data\n644 1000');
      const script = '$( = $) = "1000 1000"; $< = $> = 1000; print "$<\\n"; exec "sleep", "60"';
      expect(await run(session, `${tool('perl')} -e '${script}' & for i in $(seq 100); do [ "$(ps -o user= -p $! | tr -d ' ')" = 1000 ] && break; sleep 0.05; done; ps -o user= -p $!; kill $! && wait $!; echo "status $?"`)).toBe(
        '1000\n1000\nstatus 143',
      );
    });
  });
});
