// The persistent bash on a held terminal (script in the sandbox, FIFOs in the session directory), and the TTY exec
// it falls back to where the image has no `script`: the shell reads the same either way.
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { containerProcesses } from '../../../support/container-kit.js';
import { failingScriptImage, noScriptImage } from '../../../support/no-script-image.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** What a shell shows of how it was started, minus what differs between any two sessions. */
const SHELL_FACTS =
  'env | sort | grep -v -e ^DSH_EXEC_TAG= -e ^HOSTNAME= -e ^DSH_SESSION_ID=; stty -a; shopt -p; set +o; echo "$SHLVL $0 $-"; trap -p; tty';

/** The held terminal's directory, as the process table shows it in script's command (`…/sh-<tag>/st`). */
function heldDir(processes: readonly string[]): string | undefined {
  for (const line of processes) {
    const match = /script -qfec .*>(\S+\/sh-[0-9a-f]+)\/st;/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

describeWithEngine(`persistent bash on a held terminal${NEEDS_ENGINE}`, () => {
  let held: DshHost;
  let tty: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-held-')));
    const environment = (image: string) =>
      containerEnvironment({ workspace: root, shell: 'persistent', container: { image }, persistent: { timeoutMs: 5_000 } });
    held = await createHost(...environment(TEST_IMAGE));
    tty = await createHost(...environment(noScriptImage()));
  });
  afterAll(async () => {
    await Promise.all([held?.dispose(), tty?.dispose()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('runs bash under script in the sandbox, its terminal three FIFOs in the session directory', async () => {
    const session = held.openSession({ id: 'held-fifos', cwd: root });
    try {
      expect(text(await session.call('bash', { command: 'cd /tmp && export KEPT=1 && f() { echo fn; }' }))).toBe('(no output)');
      expect(text(await session.call('bash', { command: 'pwd; echo $KEPT; f' }))).toBe('/tmp\n1\nfn');
      const processes = await containerProcesses(session.id);
      const dir = heldDir(processes);
      expect(dir).toBeDefined();
      expect(['in', 'out', 'st'].map((name) => statSync(path.join(dir!, name)).isFIFO())).toEqual([true, true, true]);
      expect(processes.some((line) => /bash --noprofile --norc --noediting -i/.test(line))).toBe(true);
    } finally {
      await session.dispose();
    }
  });

  it('gives the shell the environment, terminal modes and options a TTY exec gives it', async () => {
    const a = held.openSession({ id: 'held-facts', cwd: root });
    const b = tty.openSession({ id: 'tty-facts', cwd: root });
    try {
      const [onHeld, onTty] = [text(await a.call('bash', { command: SHELL_FACTS })), text(await b.call('bash', { command: SHELL_FACTS }))];
      expect(onHeld).toContain('rows 50; columns 200');
      expect(onHeld).toBe(onTty);
      // The fallback is a TTY exec: no script in its sandbox.
      expect((await containerProcesses(b.id)).some((line) => line.includes('script -qfec'))).toBe(false);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  });

  it('falls back to a TTY exec where script fails at once (BusyBox has no -e)', async () => {
    const failing = await createHost(...containerEnvironment({ workspace: root, shell: 'persistent', container: { image: failingScriptImage() } }));
    try {
      const session = failing.openSession({ id: 'failing-script', cwd: root });
      expect(text(await session.call('bash', { command: 'cd /tmp && export KEPT=1' }))).toBe('(no output)');
      expect(text(await session.call('bash', { command: 'pwd; echo $KEPT' }))).toBe('/tmp\n1');
      expect(text(await session.call('bash', { command: 'exit 3' }))).toContain('[shell exited: code 3]');
      expect(text(await session.call('bash', { command: 'echo fresh' }))).toContain('fresh');
      const processes = await containerProcesses(session.id);
      expect(processes.some((line) => /bash --noprofile --norc --noediting -i/.test(line))).toBe(true);
      expect(processes.some((line) => line.includes('script -qfec'))).toBe(false);
    } finally {
      await failing.dispose();
    }
  });

  it('lets go of a terminal whose shell exited: the next shell has a directory of its own, the old one is gone', async () => {
    const session = held.openSession({ id: 'held-exit', cwd: root });
    try {
      await session.call('bash', { command: 'true' });
      const first = heldDir(await containerProcesses(session.id))!;
      expect(text(await session.call('bash', { command: 'exit 7' }))).toContain('[shell exited: code 7]');
      expect(text(await session.call('bash', { command: 'echo again' }))).toContain('again');
      const second = heldDir(await containerProcesses(session.id))!;
      expect(second).not.toBe(first);
      expect(readdirSync(path.dirname(first)).filter((name) => name.startsWith('sh-'))).toEqual([path.basename(second)]);
    } finally {
      await session.dispose();
    }
  });
});
