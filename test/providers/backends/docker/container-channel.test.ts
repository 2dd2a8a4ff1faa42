// One-shot calls through the session's channel (docs/containers.md#one-channel-per-session), on the
// real engine: the same results as an engine exec, and what happens when the holder goes away.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost, type HostSession } from '../../../../src/index.js';
import { SessionContainersToken } from '../../../../src/providers/exec/engine/session-containers.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { containerProcesses, sessionContainers } from '../../../support/container-kit.js';
import { waitUntil } from '../../../support/process-table.js';
import { ensureCallHelper } from '../../../support/call-helper-build.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`one-shot calls through the session channel${NEEDS_ENGINE}`, () => {
  let root: string;
  let withChannel: DshHost;
  let withBashChannel: DshHost;
  let withoutChannel: DshHost;
  const hostFor = (channel: boolean | 'bash') =>
    createHost(
      ...containerEnvironment({
        workspace: root,
        container: { image: TEST_IMAGE, env: { FIXED_VAR: 'fixed' }, channel },
        executor: { graceMs: 300 },
      }),
    );
  /** A session whose container's channel is ready (its first call made the container). */
  const readySession = async (id: string, host = withChannel): Promise<HostSession> => {
    const session = host.openSession({ id, cwd: root });
    expect(await host.get(SessionContainersToken).channelReady(session)).toBe(true);
    return session;
  };
  /** Runs `body` in a ready session, disposed after it whatever happens. */
  const inReadySession = async (id: string, body: (session: HostSession) => Promise<void>): Promise<void> => {
    const session = await readySession(id);
    try {
      await body(session);
    } finally {
      await session.dispose();
    }
  };
  const run = async (session: HostSession, command: string) => text(await session.call('bash', { command, description: 'Run it' }));

  beforeAll(async () => {
    ensureCallHelper();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ch-ws-')));
    withChannel = await hostFor(true);
    withBashChannel = await hostFor('bash');
    withoutChannel = await hostFor(false);
  });
  afterAll(async () => {
    await Promise.all([withChannel.dispose(), withBashChannel.dispose(), withoutChannel.dispose()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('runs the command through the channel: its output is a FIFO of the session, not an engine exec pipe', async () => {
    await inReadySession('ch-path', async (session) => {
    expect(await run(session, 'readlink /proc/$$/fd/1 | grep -c "/ch/[0-9a-f]*\\.o"')).toBe('1');
    const exec = withoutChannel.openSession({ id: 'ch-path-exec', cwd: root });
    expect(await run(exec, 'readlink /proc/self/fd/1')).toMatch(/^pipe:\[\d+\]$/);
    await exec.dispose();
    });
  });

  it('runs a call through the native call helper (built by npm run build), or through bash with channel "bash"', async () => {
    await inReadySession('ch-native', async (session) => {
      expect(await run(session, 'cat /proc/$PPID/comm')).toBe('dsh-call');
    });
    const session = await readySession('ch-bash', withBashChannel);
    try {
      expect(await run(session, 'cat /proc/$PPID/comm')).toBe('bash');
    } finally {
      await session.dispose();
    }
  });

  it("a command cannot replace or change the helper that runs the session's next calls", async () => {
    await inReadySession('ch-helper-swap', async (session) => {
      const attempts = [
        'd=$(dirname "$(readlink /proc/$$/fd/1)")',
        'cp /bin/true "$d/dsh-call" 2>/dev/null && echo replaced',
        'printf x 2>/dev/null >>"$d/dsh-call" && echo appended',
        'mv "$d/dsh-call" "$d/gone" 2>/dev/null && echo moved',
        'ln -sf /bin/true "$d/dsh-call" 2>/dev/null && echo linked',
        // Its running image, through the process that runs this call.
        'printf x 2>/dev/null >>/proc/$PPID/exe && echo wrote-exe',
        'echo tried',
      ];
      expect(await run(session, attempts.join('; '))).toBe('tried');
      // The next call still runs through the real helper, which still reports how it ended.
      expect(await run(session, 'cat /proc/$PPID/comm; exit 3')).toBe('dsh-call\n[exit code: 3]');
    });
  });

  it.each([
    ['the native call helper', () => withChannel],
    ['bash alone', () => withBashChannel],
  ])('gives the same environment, descriptors, signals, output, stderr and status as an engine exec, through %s', async (_how, host) => {
    const session = await readySession('ch-same', host());
    const exec = withoutChannel.openSession({ id: 'ch-same', cwd: root });
    try {
      const probes = [
        'env | grep -v "^DSH_EXEC_TAG=\\|^HOSTNAME=" | sort',
        // What the command's bash was given, before it set anything itself.
        'tr "\\0" "\\n" </proc/$$/environ | grep -v "^DSH_EXEC_TAG=\\|^HOSTNAME=" | sort',
        'ls /proc/self/fd; echo "$SHLVL $PWD $OLDPWD $-"; trap -p; ulimit -n; umask',
        // Read by the shell itself (a builtin): while it waits for a child, bash blocks and catches other signals for a moment.
        'while IFS= read -r l; do case $l in Sig[BIC]*) echo "$l";; esac; done </proc/$$/status; [ "$(ps -o pgid= -p $$ | tr -d " ")" = $$ ] && echo "own group"',
        'printf "a\\0b"; echo out; echo err >&2; exit 7',
        'kill -TERM $$',
        'kill -KILL $$',
        'exit 130',
        'cd /nonexistent-dir',
        'sleep 4949 & echo left',
      ];
      for (const probe of probes) expect(await run(session, probe)).toBe(await run(exec, probe));
      for (const workdir of ['/usr', '/usr/', '/nonexistent-dir', '/etc/hostname', '/usr/./bin/..']) {
        const call = (on: HostSession) => on.call('bash', { command: 'pwd; echo "$PWD $OLDPWD"', description: 'Where', workdir });
        expect(text(await call(session))).toBe(text(await call(exec)));
      }
    } finally {
      await Promise.all([session.dispose(), exec.dispose()]);
    }
  });

  it("leaves nothing of the wrapper's keyed header to read back through its stdin", async () => {
    await inReadySession('ch-key', async (session) => {
    // The helper ($PPID) read its header from a FIFO: read again, it holds nothing (a file would still hold the key).
    const input = 'for f in /proc/$PPID/fd/*; do readlink "$f" | grep -q "/ch/[0-9a-f]*\\.i$" && i=$f; done; [ -n "$i" ] && echo 1; timeout 1 cat "$i" | wc -c';
    expect(await run(session, input)).toBe('1\n0');
    });
  });

  it('passes a command longer than the argument limit and a workdir, and keeps every byte of a large output', async () => {
    await inReadySession('ch-long', async (session) => {
    const long = `echo ${'x'.repeat(300_000)} | wc -c`;
    expect(await run(session, long)).toBe('300001');
    const result = await session.call('bash', { command: 'pwd', description: 'Where', workdir: '/usr' });
    expect(text(result)).toBe('/usr');
    const big = await run(session, 'seq 1 20000 | tail -n 1; seq 1 20000 | wc -c');
    expect(big).toBe('20000\n108894');
    });
  });

  it('kills what a command left behind, and a timed-out tree, as the exec path does', async () => {
    await inReadySession('ch-kill', async (session) => {
    expect(await run(session, 'sleep 4545 & echo started')).toBe(
      'started\n[killed 1 leftover process when the command ended; use run_in_background to keep one running]',
    );
    const timed = await session.call('bash', { command: 'sleep 4646 & sleep 4747', description: 'Hang', timeoutMs: 500 });
    expect(text(timed)).toMatch(/\[timed out after 500ms\]/);
    expect((await containerProcesses(session.id)).filter((line) => /sleep (4545|4646|4747)/.test(line))).toEqual([]);
    });
  });

  it('runs 100 concurrent calls of one session, none lost', async () => {
    await inReadySession('ch-burst', async (session) => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => run(session, `echo call-${i}; echo e-${i} >&2`)));
    results.forEach((result, i) => expect(result).toBe(`call-${i}\n[stderr]\ne-${i}`));
    });
  });

  it('a subshell killed under a running command fails that call clearly, kills its tree, and the next calls still run', async () => {
    await inReadySession('ch-broken', async (session) => {
    const hanging = session.call('bash', { command: 'echo begun; sleep 4848', description: 'Hang' }, {
      // The holder, and what runs its calls: the native helper (or the holder's subshell, a bash of the same command line).
      onProgress: () => void run(session, 'pkill -KILL -f "^bash -c D=|/ch/dsh-call " ; true'),
    });
    expect(text(await hanging)).toBe(
      "Error: the session's channel into its container broke while the command ran; the command was stopped",
    );
    expect((await containerProcesses(session.id)).filter((line) => line.includes('sleep 4848'))).toEqual([]);
    expect(await run(session, 'echo still here')).toBe('still here');
    expect(await withChannel.get(SessionContainersToken).channelReady(session)).toBe(true);
    expect(await run(session, 'readlink /proc/$$/fd/1 | grep -c /ch/')).toBe('1');
    });
  });

  it('a call that started runs to its end when only the holder dies, and the next call starts a new holder', async () => {
    await inReadySession('ch-holder-gone', async (session) => {
    // The holder is the channel's process the runtime started (parent 0 in the container); its subshells are its children.
    const holderLive = 'for p in $(pgrep -f "^bash -c D="); do [ "$(ps -o ppid= -p "$p" | tr -d " ")" = 0 ] && echo "$p"; done';
    const running = session.call(
      'bash',
      { command: `echo begun; for i in $(seq 300); do [ -n "$(${holderLive})" ] || break; sleep 0.1; done; echo "holder gone: $i"`, description: 'Wait' },
      { onProgress: () => void run(session, `kill -KILL $(${holderLive})`) },
    );
    const output = text(await running);
    expect(output).toMatch(/^begun\nholder gone: \d+$/);
    expect(output).not.toBe('begun\nholder gone: 300');
    expect(await run(session, 'echo next')).toBe('next');
    expect(await withChannel.get(SessionContainersToken).channelReady(session)).toBe(true);
    expect(await run(session, 'readlink /proc/$$/fd/1 | grep -c /ch/')).toBe('1');
    });
  });

  it('a holder whose host let go of it (a server that died) kills the calls still running, and a new holder serves the next', async () => {
    await inReadySession('ch-host-gone', async (session) => {
      const live = await withChannel.get(SessionContainersToken).acquire(session);
      // What a dying server does to the holder: its end of `ctl` closes; the running call's files stay open here.
      const hanging = session.call('bash', { command: 'echo begun; sleep 5151', description: 'Hang' }, { onProgress: () => live.channel!.current()!.close() });
      expect(text(await hanging)).toBe("Error: the session's channel into its container broke while the command ran; the command was stopped");
      expect((await containerProcesses(session.id)).filter((line) => line.includes('sleep 5151') || line.includes('dsh-channel'))).toEqual([]);
      expect(await run(session, 'echo next')).toBe('next');
      expect(await withChannel.get(SessionContainersToken).channelReady(session)).toBe(true);
    });
  });

  it('an abort stops a command running through the channel and kills its tree', async () => {
    await inReadySession('ch-abort', async (session) => {
      const controller = new AbortController();
      const call = session.call('bash', { command: 'echo go; sleep 5252', description: 'Hang' }, { signal: controller.signal, onProgress: () => controller.abort() });
      expect(text(await call)).toBe('Error: tool call aborted');
      expect((await containerProcesses(session.id)).filter((line) => line.includes('sleep 5252'))).toEqual([]);
      expect(await run(session, 'readlink /proc/$$/fd/1 | grep -c /ch/')).toBe('1');
    });
  });

  it('a session disposed under a running channel call ends that call and leaves no container', async () => {
    const session = await readySession('ch-dispose');
    const call = session.call('bash', { command: 'echo go; sleep 5353', description: 'Hang' }, { onProgress: () => void session.dispose() });
    expect((await call).isError).toBe(true);
    await session.dispose();
    expect(await sessionContainers('ch-dispose')).toEqual([]);
  });

  it("one session's commands cannot reach another session's channel directory", async () => {
    await inReadySession('ch-victim', async (victim) => {
      const victimDir = (await run(victim, 'dirname "$(readlink /proc/$$/fd/1)"')).trim();
      expect(victimDir).toMatch(/\/ch$/);
      await inReadySession('ch-attacker', async (attacker) => {
        // Not mounted in the attacker's container: nothing there to list, open or write into.
        expect(await run(attacker, `ls -A ${victimDir} 2>&1 | grep -c "No such file"`)).toBe('1');
      });
    });
  });

  it('leaves nothing of a session in the shared directory but its spill files', async () => {
    await inReadySession('ch-clean', async (session) => {
    await run(session, 'true');
    // Besides the stock (`.p`) and the native helper, only this call's own FIFOs: an earlier call's went back to the stock under new names.
    const listing = await run(session, 'o=$(readlink /proc/$$/fd/1); n=$(basename "$o" .o); ls -A "$(dirname "$o")" | grep -v "\\.p$\\|^dsh-call$" | grep -v "^$n\\." | wc -l');
    expect(listing).toBe('0');
    });
  });

  it('uses a finished call\'s FIFOs again, but never one a leftover of it still holds: its late output reaches no later call', async () => {
    await inReadySession('ch-reuse', async (session) => {
      const inodes = new Set<string>();
      for (let i = 0; i < 12; i++) inodes.add(await run(session, 'stat -Lc %i /proc/$$/fd/1'));
      // Twelve calls, one after another: the FIFOs went round (a fresh one each time would give twelve).
      expect(inodes.size).toBeLessThan(12);
      // A leftover the wrapper cannot see (no environ, its own session, started well before the call ends) keeps
      // the call's stdout and writes on, deaf to SIGPIPE; the call returns at the output's drain cap.
      const leftover = '[s]eq 400';
      const leaky = await run(session, `readlink /proc/$$/fd/1; env -i setsid bash -c 'trap "" PIPE; for i in $(seq 400); do echo LEAK; sleep 0.02; done' & sleep 0.5; echo started`);
      expect(leaky).toContain('started');
      // Its FIFOs went back (out of their names) before the next calls take theirs: they come from the top of the stock.
      const stdoutName = leaky.split('\n')[0]!;
      await waitUntil(() => !existsSync(stdoutName), 'the leaky call gave its FIFOs back');
      const later = await Promise.all(Array.from({ length: 20 }, (_, i) => run(session, `sleep 0.2; echo call-${i}`)));
      later.forEach((output, i) => expect(output).toBe(`call-${i}`));
      // It was still writing all along.
      expect(Number(await run(session, `pgrep -c -f "${leftover}"`))).toBeGreaterThan(0);
      await run(session, `pkill -KILL -f "${leftover}"; true`);
    });
  }, 60_000);

  it('a session ended while its holder is still starting leaves no directory behind, and its end does not fail', async () => {
    for (let round = 0; round < 3; round++) {
      const session = withChannel.openSession({ id: `ch-early-end-${round}`, cwd: root });
      // The first call makes the container and starts the holder without waiting for it.
      expect(await run(session, 'echo first')).toBe('first');
      const dir = await withChannel.get(SessionContainersToken).sessionDirOf(session);
      expect(dir).toBeDefined();
      await session.dispose();
      expect(existsSync(dir!)).toBe(false);
    }
  });
});
