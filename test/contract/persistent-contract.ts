// What the model sees from the persistent `bash` tool, checked the same way
// on every backend: the local PTY, the PTY under bwrap and a TTY exec in a
// session container answer the same calls with the same texts.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, type DshHost, type HostSession, type PluginModule } from '../../src/index.js';
import {
  FRAME_LOST_NOTICE,
  RESET_NOTICE,
  RESTARTED_NOTICE,
  WAITING_NOTICE,
} from '../../src/tools/persistent-bash/persistent-bash-render.js';

/** The persistent timeout the contract's environments use (the timeout case waits for it). */
export const CONTRACT_TIMEOUT_MS = 1500;

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** Registers the contract's cases; `environment` composes the backend for a workspace with a persistent timeout of `CONTRACT_TIMEOUT_MS`. */
export function persistentBashContract(environment: (workspace: string) => PluginModule[]): void {
  let host: DshHost;
  let root: string;
  let session: HostSession;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-contract-pty-')));
    host = await createHost(...environment(root));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    session = host.openSession({ cwd: root });
  });
  afterEach(() => session.dispose());
  const call = async (command: string, extra: Record<string, unknown> = {}) => text(await session.call('bash', { command, ...extra }));

  it('keeps cd, exports and functions across calls, and marks a failure with its exit code', async () => {
    expect(await call('mkdir -p sub && cd sub && export KEPT=yes && f() { echo fn; }')).toBe('(no output)');
    expect(await call('pwd; echo $KEPT; f')).toBe(`${root}/sub\nyes\nfn`);
    expect(await call('false')).toBe('(no output)\n[exit code: 1]');
  });

  it("gives the shell its session's DSH_* overlay and none of the server's credentials", async () => {
    process.env.CONTRACT_API_TOKEN = 'server-secret';
    try {
      expect(await call('echo "$DSH_SESSION_ID ${CONTRACT_API_TOKEN:-absent}"')).toBe(`${session.id} absent`);
    } finally {
      delete process.env.CONTRACT_API_TOKEN;
    }
  });

  it('runs commands longer than a terminal line, and heredocs with quotes', async () => {
    expect(await call(`echo ${'x'.repeat(5000)} | wc -c`)).toBe('5001');
    expect(await call(`printf %s '${'y\\n'.repeat(30_000)}' | wc -c`)).toBe('90000');
    expect(await call("cat <<'EOF'\nit's \"quoted\" $HOME\nEOF")).toBe('it\'s "quoted" $HOME');
  });

  it('clips long output to its beginning and says how much was not shown', async () => {
    const clipped = await call('head -c 100000 /dev/zero | tr "\\0" y');
    expect(clipped).toBe(`${'y'.repeat(16_000)}\n[output clipped: 84000 more characters not shown]`);
  });

  it('returns early for a command waiting for terminal input and types the next call into it', async () => {
    expect(await call('read -r name; echo "hello $name"')).toBe(WAITING_NOTICE);
    expect(await call('world')).toBe('hello world');
  });

  it('reports the shell exit; the next call gets a fresh shell in the workspace', async () => {
    await call('cd /; export GONE=1');
    expect(await call('exit 7')).toBe(`exit\n[shell exited: code 7]\n${RESET_NOTICE}`);
    expect(await call('pwd; echo ${GONE:-unset}')).toMatch(new RegExp(`${root}\nunset$`));
  });


  it('reports a shell killed by a signal as that signal, and an exit of 128+n as that code', async () => {
    expect(await call('kill -9 $$')).toBe(`(no output)\n[shell killed by signal: SIGKILL]\n${RESET_NOTICE}`);
    expect(await call('exit 137')).toBe(`exit\n[shell exited: code 137]\n${RESET_NOTICE}`);
    expect(await call('echo back')).toMatch(/back$/);
  });

  it('times out, resets, and the next call runs in a fresh shell', async () => {
    expect(await call('sleep 30')).toBe(`(no output)\n[timed out after ${CONTRACT_TIMEOUT_MS}ms]\n${RESET_NOTICE}`);
    expect(await call('echo back')).toMatch(/back$/);
  });

  it('reports a shell that no longer runs the frame, and resets it', async () => {
    await call('cd /tmp; trap false DEBUG; shopt -s extdebug');
    expect(await call('echo never')).toBe(`(no output)\n${FRAME_LOST_NOTICE}\n${RESET_NOTICE}`);
    expect(await call('pwd')).toBe(root);
  });

  it('names a session directory that does not exist, or is a file, instead of starting a shell elsewhere', async () => {
    const gone = host.openSession({ cwd: path.join(root, 'gone') });
    try {
      const result = await gone.call('bash', { command: 'pwd' });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`Error: working directory does not exist: ${path.join(root, 'gone')}`);
    } finally {
      await gone.dispose();
    }
    writeFileSync(path.join(root, 'a-file'), '');
    const file = host.openSession({ cwd: path.join(root, 'a-file') });
    try {
      expect(text(await file.call('bash', { command: 'pwd' }))).toBe(`Error: working directory is not a directory: ${path.join(root, 'a-file')}`);
    } finally {
      await file.dispose();
    }
  });

  it('restart: true runs in a fresh shell; a NUL in the command is refused', async () => {
    await call('cd /; export OLD=1');
    expect(await call('pwd; echo ${OLD:-unset}', { restart: true })).toBe(`${RESTARTED_NOTICE}\n${root}\nunset`);
    expect(await call('echo a\0b')).toBe('Error: invalid command: contains a NUL character');
  });
}
