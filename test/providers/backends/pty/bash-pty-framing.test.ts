import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PtySession } from '../../../../src/providers/exec/terminal/terminal-service.js';
import { ptyShells } from '../../../support/pty-shells.js';

// Attacks on the frame around each command: whatever a command redefines,
// later calls must still run, report their status, and never hang.

const shells = ptyShells('dsh-frame-test-');
const { open, send } = shells;

/** After `attack`, an ordinary command (with an env refresh) still runs and reports its status. */
async function stillWorks(attack: string): Promise<PtySession> {
  const shell = await open();
  await send(shell, attack);
  const result = await send(shell, 'echo "ok $DSH_PROBE"; (exit 3)', { DSH_PROBE: 'fresh' });
  expect(result).toMatchObject({ output: 'ok fresh\n', end: { kind: 'completed', exitCode: 3 } });
  return shell;
}

describe('persistent shell frame under attack (real PTY)', () => {
  it('a function named eval neither hijacks later calls nor disappears', async () => {
    const shell = await stillWorks('function eval(){ echo EVIL; }');
    expect((await send(shell, 'type -t eval; eval')).output).toBe('function\nEVIL\n');
    expect((await send(shell, 'exit 4')).end).toEqual({ kind: 'shell-exited', exitCode: 4, signal: null });
  });

  it('an alias for eval does not swallow later calls, and kill -9 $$ still kills the shell', async () => {
    const shell = await stillWorks("alias eval='echo X #'");
    expect((await send(shell, 'kill -9 $$')).end).toEqual({ kind: 'shell-exited', exitCode: null, signal: 'SIGKILL' });
  });

  it('a function named printf does not leave calls waiting: the prompt marker ends them', async () => {
    await stillWorks('function printf(){ :; }');
  });

  it('functions and aliases named after every builtin the frame uses change nothing', async () => {
    const names = ['builtin', 'command', 'unset', 'set', 'trap', 'export', 'return', 'printf', 'case', 'eval', 'read', 'local', 'declare'];
    const functions = names.filter((n) => n !== 'case').map((n) => `function ${n}(){ echo "hijacked ${n}"; return 0; }`);
    const aliases = names.map((n) => `alias ${n}='echo aliased #'`);
    await stillWorks([...aliases, `alias '{'='echo aliased #'`, ...functions].join('\n'));
  });

  it('shell options and variables a command sets do not break the frame', async () => {
    const shell = await stillWorks(
      'set -u; set -o noglob; set -o pipefail; shopt -s failglob nullglob; IFS=x0123456789abcdef; set -o posix; ' +
        'set -o history; set -H; shopt -u promptvars',
    );
    // History expansion is on now, yet a `!` in a command stays a `!`.
    expect((await send(shell, 'echo "a!b" ü')).output).toBe('a!b ü\n');
    // The user's POSIX mode is kept for the user's command.
    expect((await send(shell, 'echo ":$SHELLOPTS:" | grep -c :posix:')).output).toBe('1\n');
    await send(shell, 'set +o posix');
    expect((await send(shell, 'echo ":$SHELLOPTS:" | grep -c :posix:; true')).output).toBe('0\n');
  });

  it('set -x and set -v traces of the frame stay out of the output', async () => {
    const shell = await open();
    await send(shell, 'set -x -v');
    const result = await send(shell, 'echo hi');
    // The verbose line and the trace of the command itself are the user's (the depth shows the frame's evals).
    expect(result.output).toMatch(/^echo hi\n\+{2,3} echo hi\nhi\n$/);
  });

  it('RETURN, ERR and DEBUG traps under functrace/errtrace do not break the frame', async () => {
    const shell = await stillWorks("set -T; trap 'echo RET' RETURN; trap ': debug' DEBUG");
    await send(shell, "set -E; trap 'echo ERR' ERR");
    expect(await send(shell, 'echo ok')).toMatchObject({ output: 'ok\n', end: { kind: 'completed', exitCode: 0 } });
    expect((await send(shell, 'false')).end).toEqual({ kind: 'completed', exitCode: 1 });
    // Under extdebug a RETURN trap runs for the frame's end function too; a DEBUG trap that succeeds skips nothing.
    await stillWorks("shopt -s extdebug; trap 'echo ret' RETURN; trap true DEBUG; set -o functrace");
  });

  it('prompts, PROMPT_COMMAND and closed stderr do not break the frame', async () => {
    const shell = await stillWorks("PS1='p> '; PS0='ps0 '; PS2='> '; PROMPT_COMMAND='echo pc'; readonly PS1 PS0");
    await send(shell, 'exec 2>/dev/null');
    expect(await send(shell, 'echo out; ls /nonexistent-dsh')).toMatchObject({ output: 'out\n', end: { kind: 'completed', exitCode: 2 } });
  });

  it('a DEBUG trap under extdebug blocks everything: the next call reports a lost frame instead of hanging', async () => {
    const shell = await open();
    await send(shell, 'trap false DEBUG; shopt -s extdebug');
    const result = await send(shell, 'echo never');
    expect(result.end).toEqual({ kind: 'framing-lost' });
    expect(result.output).not.toContain('never');
    expect(shell.alive).toBe(false);
  });

  it('a frame made impossible (eval disabled, or shadowed with POSIX mode locked out) is reported, not waited on', async () => {
    for (const attack of ['enable -n eval', 'readonly POSIXLY_CORRECT; function eval(){ echo EVIL; }']) {
      const shell = await open();
      await send(shell, attack);
      expect((await send(shell, 'echo never')).end).toEqual({ kind: 'framing-lost' });
    }
  });

  it('with stderr closed too (no prompt marker), a shell reading its next line before any start marker is a lost frame', async () => {
    const shell = await open();
    expect((await send(shell, 'exec 2>/dev/null; enable -n eval')).end).toEqual({ kind: 'completed', exitCode: 0 });
    expect((await send(shell, 'echo never')).end).toEqual({ kind: 'framing-lost' });
    expect(shell.alive).toBe(false);
  });
});

describe('long commands travel as data, never through a file', () => {
  it('runs a command over 64 KiB and one of 1 MiB, with every byte intact', async () => {
    const shell = await open();
    const body = Array.from({ length: 70_000 }, (_, i) => String.fromCharCode(32 + (i % 90))).join('').replace(/'/g, '"');
    const result = await send(shell, `s='${body}\n\t\x01ü'\nprintf '%s' "$s" | md5sum | cut -c1-8; echo "\${#s}"`);
    const { createHash } = await import('node:crypto');
    const expected = createHash('md5').update(`${body}\n\t\x01ü`).digest('hex').slice(0, 8);
    expect(result).toMatchObject({ output: `${expected}\n${body.length + 4}\n`, end: { kind: 'completed', exitCode: 0 } });
    const mib = await send(shell, `: '${'y'.repeat(1024 * 1024)}'; echo done`);
    expect(mib).toMatchObject({ output: 'done\n', end: { kind: 'completed', exitCode: 0 } });
  });

  it('a racer rewriting dsh-pty temp files in the temp directory never gets its payload run', async () => {
    const pattern = path.join(tmpdir(), 'dsh-pty-*');
    const racer: ChildProcess = spawn(
      'bash',
      ['-c', `while :; do for f in ${pattern}/cmd-* ${pattern}/env-*; do [ -e "$f" ] && printf 'echo PWNED' > "$f"; done; done`],
      { stdio: 'ignore' },
    );
    // Whatever temp directory the host would pick, it stays empty: there is no file to race for.
    const privateTmp = mkdtempSync(path.join(shells.workspace(), 'tmp-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    try {
      const shell = await open();
      for (let i = 0; i < 20; i++) {
        const result = await send(shell, `# ${'pad '.repeat(1500)}\necho run-${i}`);
        expect(result.output).toBe(`run-${i}\n`);
      }
      expect(readdirSync(privateTmp)).toEqual([]);
    } finally {
      racer.kill('SIGKILL');
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
  });
});

describe('startup files by the back door', () => {
  it('BASH_ENV and ENV of the server do not reach the shell or what it runs', async () => {
    const rc = path.join(shells.workspace(), 'rc.sh');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(rc, 'echo SOURCED\n');
    const saved = { BASH_ENV: process.env.BASH_ENV, ENV: process.env.ENV };
    process.env.BASH_ENV = rc;
    process.env.ENV = rc;
    try {
      const shell = await open();
      const result = await send(shell, 'echo "${BASH_ENV-unset}|${ENV-unset}"; bash -c "echo child"; sh -ic "echo posix-child" 2>/dev/null');
      expect(result.output).toBe('unset|unset\nchild\nposix-child\n');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
