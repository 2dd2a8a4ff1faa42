import { existsSync } from 'node:fs';
import path from 'node:path';
import { LocalSandboxPolicy } from '../../../src/providers/backends/bwrap/local-sandbox-policy.js';
import { SandboxConfinement } from '../../../src/providers/backends/bwrap/sandbox-confinement.js';
import { BashPtyBackend } from '../../../src/providers/backends/pty/bash-pty-backend.js';
import { UnavailableProvider } from '../../support/sandbox-test-kit.js';
import {
  CANCELLED_NOTICE,
  FRESH_SHELL_NOTICE,
  RESET_NOTICE,
  WAITING_NOTICE,
  type PersistentBashValue,
} from '../../../src/tools/persistent-bash/persistent-bash-render.js';
import { eventually, isAlivePid, processesWith, uniqueSleepArg } from '../../support/proc-helpers.js';
import { harness, RecordingTerminalService, type Harness } from './persistent-bash-fixture.js';

let h: Harness;

beforeEach(async () => {
  h = await harness();
});
afterEach(() => h.dispose());

describe('PersistentBashTool (real PTY)', () => {
  it('keeps the working directory between calls', async () => {
    const s = h.session('s');
    expect(await h.text(s, 'pwd')).toBe(h.workspace);
    expect(await h.text(s, 'cd /tmp')).toBe('(no output)');
    expect(await h.text(s, 'pwd')).toBe('/tmp');
  });

  it('keeps exported variables and functions between calls', async () => {
    const s = h.session('s');
    await h.text(s, 'export X=1');
    await h.text(s, 'twice() { echo "$1$1"; }');
    expect(await h.text(s, 'echo "X=$X"; twice ab')).toBe('X=1\nabab');
  });

  it('runs a multi-line command with a heredoc, quotes and $\'…\'', async () => {
    const s = h.session('s');
    const text = await h.text(s, "cat <<'EOF'\nkeep $HOME \"and\" 'this'\nEOF\necho $'tab\\there' \"dq 'sq'\"");
    expect(text).toBe("keep $HOME \"and\" 'this'\ntab\there dq 'sq'");
  });

  it('appends [exit code: N] for a non-zero status and returns a typed value', async () => {
    const s = h.session('s');
    const result = await h.call(s, 'echo out; (exit 4)');
    expect(result.content[0]!.text).toBe('out\n[exit code: 4]');
    expect(result.isError).toBeUndefined();
    expect(result.value).toMatchObject({ kind: 'foreground', output: 'out\n', exitCode: 4, shellReset: false });
    expect((await h.call(s, 'false')).content[0]!.text).toBe('(no output)\n[exit code: 1]');
  });

  it('`exit 7` reports the shell exit and a reset; the next call runs in a fresh shell at the workspace', async () => {
    const s = h.session('s');
    await h.text(s, 'cd /tmp; export GONE=1');
    const text = await h.text(s, 'exit 7');
    expect(text.endsWith(`[shell exited: code 7]\n${RESET_NOTICE}`)).toBe(true);
    expect(await h.text(s, 'pwd; echo "${GONE-unset}"')).toBe(`${h.workspace}\nunset`);
  });

  it('`kill -9 $$` reports the signal and a reset', async () => {
    const s = h.session('s');
    const result = await h.call(s, 'kill -9 $$');
    expect(result.content[0]!.text).toBe(`(no output)\n[shell killed by signal: SIGKILL]\n${RESET_NOTICE}`);
    expect(result.value).toMatchObject({ shellExited: true, signal: 'SIGKILL', shellReset: true });
    expect(await h.text(s, 'echo back')).toBe('back');
  });

  it('says so when the shell died between calls', async () => {
    const s = h.session('s');
    const pid = Number(await h.text(s, 'echo $$'));
    process.kill(pid, 'SIGKILL');
    await eventually(() => isAlivePid(pid), (alive) => !alive);
    await eventually(() => h.terminals.isAlive(s, h.terminals.ids[0]!), (alive) => !alive);
    expect(await h.text(s, 'pwd')).toBe(`${FRESH_SHELL_NOTICE}\n${h.workspace}`);
  });

  it('clips 100000 characters of output to the beginning with a notice', async () => {
    const s = h.session('s');
    const text = await h.text(s, "head -c 100000 /dev/zero | tr '\\0' a; echo");
    expect(text).toBe(`${'a'.repeat(16000)}\n[output clipped: 84001 more characters not shown]`);
  });

  it('does not end early when a command prints a fake end marker', async () => {
    const s = h.session('s');
    const text = await h.text(s, "printf '\\037E%s:0\\037\\n' 0123456789abcdef; sleep 0.2; echo after");
    // Marker-shaped bytes that are not this call's markers never reach a result (docs/persistent-shell-framing.md).
    expect(text).toBe('\nafter');
  });

  it('returns early when a command waits for input, and the next call answers it', async () => {
    const s = h.session('s');
    const waiting = await h.call(s, 'read -p "name? " x; echo "hi $x"');
    expect(waiting.content[0]!.text).toBe(`name? \n${WAITING_NOTICE}`);
    expect((waiting.value as PersistentBashValue).waitingForInput).toBe(true);
    const answered = await h.call(s, 'Ada');
    expect(answered.content[0]!.text).toBe('hi Ada');
    expect((answered.value as PersistentBashValue).deliveredAsInput).toBe(true);
  });

  it('never shares state between two sessions', async () => {
    const [a, b] = [h.session('a'), h.session('b')];
    await h.text(a, 'export ONLY_A=1; cd /tmp');
    expect(await h.text(b, 'echo "${ONLY_A-unset}"; pwd; echo "$DSH_SESSION_ID"')).toBe(`unset\n${h.workspace}\nb`);
    expect(await h.text(a, 'echo "$ONLY_A"; pwd; echo "$DSH_SESSION_ID"')).toBe('1\n/tmp\na');
  });

  it('runs concurrent calls of one session one at a time, in order', async () => {
    const s = h.session('s');
    const calls = [
      h.text(s, 'sleep 0.3; export STEP=first'),
      h.text(s, 'echo "after $STEP"; STEP=second'),
      h.text(s, 'echo "$STEP"'),
    ];
    expect(await Promise.all(calls)).toEqual(['(no output)', 'after first', 'second']);
  });

  it('collects the env overlay for the persistent mode at the workspace', async () => {
    const s = h.session('s');
    await h.text(s, 'true');
    expect(h.env.executions[0]).toMatchObject({ session: s, mode: 'persistent', workdir: h.workspace });
  });

  it('closes the shell on timeout and leaves no process behind', async () => {
    const timed = await harness({ timeoutMs: 500 });
    try {
      const s = timed.session('s');
      const arg = uniqueSleepArg();
      const text = await timed.text(s, `echo partial; sleep ${arg} & sleep ${arg}`);
      expect(text).toMatch(new RegExp(`^partial\\n(\\[1\\] \\d+\\n)?\\[timed out after 500ms\\]\\n${escape(RESET_NOTICE)}$`));
      expect(processesWith(arg)).toEqual([]);
      expect(await timed.text(s, 'echo next')).toBe('next');
    } finally {
      await timed.dispose();
    }
  });

  it('an abort fails the call and resets the shell; the next result says so on its first line', async () => {
    const s = h.session('s');
    await h.text(s, 'export KEPT=1');
    const controller = new AbortController();
    const arg = uniqueSleepArg();
    const pending = h.call(s, `sleep ${arg}`, controller.signal);
    await eventually(() => processesWith(arg), (pids) => pids.length > 0);
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: tool call aborted' }] });
    expect(processesWith(arg)).toEqual([]);
    expect(await h.text(s, 'echo "${KEPT-unset}"; pwd')).toBe(`${CANCELLED_NOTICE}\nunset\n${h.workspace}`);
    expect(await h.text(s, 'echo again')).toBe('again');
  });

  it('an abort while queued fails the call without touching the shell', async () => {
    const s = h.session('s');
    await h.text(s, 'export KEPT=1');
    const controller = new AbortController();
    controller.abort();
    expect(await h.call(s, 'echo never', controller.signal)).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: tool call aborted' }],
    });
    expect(await h.text(s, 'echo "$KEPT"')).toBe('1');
  });

  it('session disposal closes the shell and its jobs', async () => {
    const s = h.session('s');
    const arg = uniqueSleepArg();
    await h.text(s, `sleep ${arg} &`);
    await eventually(() => processesWith(arg), (pids) => pids.length === 1);
    await s.dispose();
    expect(processesWith(arg)).toEqual([]);
  });

  it('fails closed when the terminal backend has a confinement that cannot confine', async () => {
    const confinement = new SandboxConfinement(new LocalSandboxPolicy(), new UnavailableProvider());
    const terminals = new RecordingTerminalService([new BashPtyBackend({}, confinement)]);
    const confined = await harness({}, terminals);
    const s = confined.session('s');
    expect(await confined.call(s, 'touch ran')).toMatchObject(failure('sandbox unavailable for read-only mode: bwrap was not found'));
    expect(existsSync(path.join(confined.workspace, 'ran'))).toBe(false);
    expect(terminals.ids).toEqual([]);
    await confined.dispose();
  });

  it('requires an owning session', async () => {
    expect(await h.call(undefined, 'true')).toMatchObject(failure('bash requires an owning agent session'));
  });

  it('names an unknown backend type', async () => {
    const other = await harness({ backendType: 'nope' });
    try {
      expect(await other.call(other.session('s'), 'true')).toMatchObject(failure('no PTY backend registered for "nope"'));
    } finally {
      await other.dispose();
    }
  });
});

/** A tool failure as the host reports it: one `Error: …` block containing `message` (as `toThrow` matched it), `isError` set. */
function failure(message: string) {
  return { isError: true, content: [{ type: 'text', text: expect.stringContaining(`Error: ${message}`) }] };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('PersistentBashTool progress (real PTY)', () => {
  it('reports output progress with the last line while a command runs', async () => {
    const s = h.session('s');
    const seen: { bytes: number; lastLine?: string; elapsedMs: number }[] = [];
    const result = await h.tool.run(
      { command: 'for i in 1 2 3 4; do echo tick-$i; sleep 0.2; done' },
      { session: s, signal: new AbortController().signal, callId: 'progress', onProgress: (p) => seen.push(p) },
    );
    expect(result.content[0]!.text).toBe('tick-1\ntick-2\ntick-3\ntick-4');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)!.lastLine).toMatch(/^tick-\d$/);
    expect(seen.map((p) => p.bytes)).toEqual([...seen.map((p) => p.bytes)].sort((a, b) => a - b));
  });
});
