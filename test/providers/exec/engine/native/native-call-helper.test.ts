// The native call helper (docs/containers.md#the-native-call-helper) against the bash path it stands
// in for, both run by the real holder on this machine: an "engine" whose exec is a local process, so
// every case runs twice in one channel directory layout and the two results must be byte for byte equal.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killTaggedThrough } from '../../../../../src/providers/exec/engine/kill-tagged.js';
import type { ContainerEngine, ExecChannel, ExecOptions } from '../../../../../src/providers/exec/engine/container-engine.js';
import { wrapperInput } from '../../../../../src/providers/exec/engine/container-exec-wrapper.js';
import { SessionChannel } from '../../../../../src/providers/exec/engine/session-channel.js';
import { callHelperBinary } from '../../../../../src/providers/exec/engine/native/call-helper.js';
import { ensureCallHelper } from '../../../../support/call-helper-build.js';

/** An exec is a process of this machine, its environment only what the exec names (and PATH). */
const localExec = async (options: ExecOptions): Promise<ExecChannel> => {
  const child = spawn(options.argv[0]!, options.argv.slice(1), {
    cwd: options.workdir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ exitCode: number | null }>((resolve) => child.on('close', (code) => resolve({ exitCode: code })));
  return {
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    write: () => undefined,
    resize: async () => undefined,
    hostPid: async () => child.pid,
    detach: () => {
      child.stdout.destroy();
      child.stderr.destroy();
    },
  };
};
const localEngine = {
  exec: (_id: string, options: ExecOptions) => localExec(options),
  killTagged: (_id: string, tag: string, signal: 'TERM' | 'KILL') => killTaggedThrough(localExec, tag, signal),
} as unknown as ContainerEngine;

interface Outcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
}

ensureCallHelper();
const helper = callHelperBinary();
const describeWithHelper = helper === null ? describe.skip : describe;

describeWithHelper(`the native call helper against the bash wrapper${helper === null ? ' (skipped: no C compiler here to build the helper)' : ''}`, () => {
  let root: string;
  let native: SessionChannel;
  let bash: SessionChannel;
  const open = async (name: string, nativeHelper: boolean): Promise<SessionChannel> => {
    const channel = await SessionChannel.open({ engine: localEngine, containerId: 'local', sharedDir: root, channelDir: name, nativeHelper });
    expect(channel).toBeDefined();
    expect(channel!.native).toBe(nativeHelper);
    return channel!;
  };
  /** One call through `channel`; the key in its records shown as `KEY`, so two calls compare. */
  const call = async (channel: SessionChannel, command: string, options: { workdir?: string; stdin?: string; env?: Record<string, string> } = {}): Promise<Outcome> => {
    const input = wrapperInput('bash', command, options.workdir ?? root, options.stdin);
    const env = { FIXED_VAR: 'fixed', ...options.env, DSH_EXEC_TAG: `${randomBytes(6).toString('hex')}w` };
    const exec = await channel.run(input.argv, env, input.stdin);
    expect(exec).toBeDefined();
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    exec!.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    exec!.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const { exitCode } = await exec!.exited;
    return { stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString().split(input.key).join('KEY'), exitCode };
  };
  const same = async (command: string, options: Parameters<typeof call>[2] = {}): Promise<Outcome> => {
    const [fromNative, fromBash] = [await call(native, command, options), await call(bash, command, options)];
    expect(fromNative).toEqual(fromBash);
    return fromNative;
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'dsh-native-'));
    [native, bash] = [await open('native', true), await open('bash', false)];
  });
  afterAll(async () => {
    native?.close();
    bash?.close();
    await Promise.all([native?.settled(), bash?.settled()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('runs the native path where asked, and the bash one beside it', async () => {
    expect((await call(native, 'cat /proc/$PPID/comm')).stdout).toBe('dsh-call\n');
    expect((await call(bash, 'cat /proc/$PPID/comm')).stdout).toBe('bash\n');
  });

  it('gives the command the same output, stderr, records and status', async () => {
    const outcome = await same('echo out; printf "a\\0b"; echo err >&2; exit 3');
    expect(outcome).toEqual({ stdout: 'out\na\0b', stderr: 'err\n\x1fdsh-status:KEY:left:0\x1f', exitCode: 3 });
    await same('exit 130');
    await same('true');
  });

  it('gives the same environment, descriptors, signal dispositions, process group and limits', async () => {
    await same('tr "\\0" "\\n" </proc/$$/environ | grep -v "^DSH_EXEC_TAG=" | sort; env | grep -v "^DSH_EXEC_TAG=" | sort');
    await same('ls /proc/self/fd; readlink /proc/$$/fd/0 /proc/$$/fd/3; echo "$SHLVL $PWD $OLDPWD $- $0"; trap -p; umask; ulimit -a');
    // Read by the shell itself (a builtin): while it waits for a child, bash blocks and catches other signals for a moment.
    await same('while IFS= read -r l; do case $l in Sig[BIC]*) echo "$l";; esac; done </proc/$$/status; [ "$(ps -o pgid= -p $$ | tr -d " ")" = $$ ] && echo own group');
    await same('echo "$SHLVL"', { env: { SHLVL: '5' } });
  });

  it('reports a death by a signal as the wrapper does, and an exit of 128+n as an exit', async () => {
    for (const signal of ['TERM', 'KILL', 'INT', 'QUIT', 'PIPE', 'SEGV']) await same(`kill -${signal} $$`);
    for (const signal of ['TERM', 'KILL', 'SEGV']) expect((await same(`kill -${signal} $$`)).stderr).toContain(':signal:');
    expect((await same('exit 143')).stderr).not.toContain(':signal:');
  });

  it('passes stdin byte for byte and ends it, also when the command does not read it', async () => {
    const bytes = `first line\n${'é'.repeat(5000)}\nno newline at the end`;
    expect((await same('cat; echo "|$?"', { stdin: bytes })).stdout).toBe(`${bytes}|0\n`);
    await same('head -c 3; echo', { stdin: 'x'.repeat(300_000) });
    await same('echo never read', { stdin: 'y'.repeat(300_000) });
    await same('wc -c', { stdin: '' });
  });

  it('passes a command longer than the argument limit on its own descriptor, with stdin beside it', async () => {
    const long = `: ${'z'.repeat(300_000)}; cat; echo "$(wc -c <<<"$0")"`;
    expect((await same(long, { stdin: 'input' })).stdout).toBe('input5\n');
  });

  it('says why it could not enter the workdir, in the same keyed record and status', async () => {
    const file = path.join(root, 'a-file');
    writeFileSync(file, '');
    expect((await same('pwd', { workdir: path.join(root, 'missing') })).stderr).toBe('\x1fdsh-status:KEY:workdir:missing\x1f');
    expect((await same('pwd', { workdir: file })).stderr).toBe('\x1fdsh-status:KEY:workdir:notdir\x1f');
    expect((await same('pwd; echo "$PWD $OLDPWD"', { workdir: '/usr' })).stdout).toMatch(/^\/usr\n\/usr \//);
  });

  it('kills and counts what the command left behind: its process group and a setsid daemon', async () => {
    const outcome = await same('sleep 4141 & setsid sleep 4242 & echo left');
    expect(outcome.stderr).toContain(':left:2\x1f');
    const running = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
      try {
        return /^sleep\0(4141|4242)\0/.test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
      } catch {
        return false;
      }
    });
    expect(running).toEqual([]);
  });

  it('a wrapper killed under its command still gets its status written (137), as on the bash path, with a stdin feeder left blocked', async () => {
    // The status comes from a process the wrapper's tag does not reach; the feeder holds none of the call's files.
    const outcome = await same('kill -KILL $PPID; sleep 6161', { stdin: 'w'.repeat(300_000) });
    expect(outcome).toEqual({ stdout: '', stderr: '', exitCode: 137 });
  });

  it('runs 100 calls at once through the helper, none lost', async () => {
    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => call(native, `echo call-${i}; echo e-${i} >&2`)));
    outcomes.forEach((outcome, i) => expect(outcome).toEqual({ stdout: `call-${i}\n`, stderr: `e-${i}\n\x1fdsh-status:KEY:left:0\x1f`, exitCode: 0 }));
  });

  it('leaves nothing of the keyed header to read back through the descriptors the helper holds', async () => {
    const probe = 'for f in /proc/$PPID/fd/*; do readlink "$f" | grep -q "\\.i$" && i=$f; done; [ -n "$i" ] && echo found; timeout 1 cat "$i" | wc -c';
    expect((await call(native, probe)).stdout).toBe('found\n0\n');
  });
});
