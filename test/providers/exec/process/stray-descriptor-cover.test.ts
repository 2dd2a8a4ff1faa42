// An embedding host's inheritable descriptors kept from a command without a process per call:
// /dev/null put over each in the child, then closed by the command's own bash (stray-descriptor-cover.ts).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { PRELUDE_FD, withStraysCovered, type StraySpawn } from '../../../../src/providers/exec/process/stray-descriptor-cover.js';
import { strayDescriptors } from '../../../../src/providers/exec/process/stray-descriptors.js';

const BASH = '/bin/bash';
/**
 * Descriptors the host is taken to hold: this process's own inheritable ones (a runner's), and two it has
 * close-on-exec or not at all, so that only the cover can put anything there.
 */
const STRAYS = [...new Set([...strayDescriptors(), 7, 40])].sort((a, b) => a - b);
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };

function run(spawn: StraySpawn): SpawnSyncReturns<string> {
  const [file, ...args] = spawn.argv;
  return spawnSync(file!, args, { env: spawn.env, stdio: spawn.stdio.map((entry) => (entry instanceof Uint8Array ? 'pipe' : entry)), encoding: 'utf8' });
}

function plain(command: string): StraySpawn {
  return { argv: [BASH, '-c', command], env: ENV, stdio: ['ignore', 'pipe', 'pipe'] };
}

function covered(command: string, env: Record<string, string> = ENV): StraySpawn {
  return withStraysCovered({ ...plain(command), env }, { shellPath: BASH, keep: [], closing: 'prelude' }, STRAYS);
}

/** What `ls -l /proc/self/fd` shows at each descriptor above 2 (ls's own directory aside). */
function heldAbove2(output: string): Record<string, string> {
  const held: Record<string, string> = {};
  for (const match of output.matchAll(/ (\d+) -> (\S+)$/gm)) if (Number(match[1]) > 2 && !match[2]!.startsWith('/proc/')) held[match[1]!] = match[2]!;
  return held;
}

describe('the stray-descriptor cover', () => {
  it('puts /dev/null over every stray the spawn does not fill itself, before anything of the child runs', () => {
    const spawn = withStraysCovered(plain('ls -l /proc/self/fd'), { shellPath: BASH, keep: [], closing: 'closes-itself' }, STRAYS);
    expect(spawn.argv).toEqual(plain('').argv.slice(0, 2).concat('ls -l /proc/self/fd'));
    expect(heldAbove2(run(spawn).stdout)).toEqual(Object.fromEntries(STRAYS.map((fd) => [fd, '/dev/null'])));
  });

  it("leaves a descriptor the spawn passes on purpose as it is (a launcher's pipe at a stray's number)", () => {
    const spawn = withStraysCovered(
      { argv: [BASH, '-c', 'ls -l /proc/self/fd'], env: ENV, stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'ignore', 'ignore', 'pipe'] },
      { shellPath: BASH, keep: [7], closing: 'closes-itself' },
      STRAYS,
    );
    const held = heldAbove2(run(spawn).stdout);
    expect(held[7]).toMatch(/^socket:/);
    expect(held[40]).toBe('/dev/null');
  });

  it("has the command's own bash close them (and the prelude's descriptor) before the command runs, with no process of its own", () => {
    const spawn = covered('echo $$; ls -l /proc/self/fd');
    expect(spawn.argv).toEqual([BASH, '-c', 'echo $$; ls -l /proc/self/fd']);
    expect(spawn.stdio[PRELUDE_FD]).toEqual(expect.any(Number));
    const result = run(spawn);
    expect(heldAbove2(result.stdout)).toEqual({});
    expect(result.stderr).toBe('');
  });

  it('leaves the command what a fresh `bash -c` has: variables, options, traps, the empty hash table, $_, $?, $LINENO, environment', () => {
    const probe = [
      'echo "_=$_ ?=$? L=$LINENO -=$- 0=$0 #=$#"; echo "hash:[$(hash -l 2>&1)]"',
      // Dynamic ones differ from run to run; PIPESTATUS and BASH_ARGC are the documented differences (below).
      'declare -p >/tmp/dsh-cover-probe.$$; grep -v "^declare -[a-zA-Z-]* \\(BASHPID\\|BASH_ARGV0\\|EPOCH[A-Z]*\\|S\\?RANDOM\\|SECONDS\\|PPID\\|_\\|PIPESTATUS\\|BASH_ARGC\\|BASH_COMMAND\\)=" /tmp/dsh-cover-probe.$$; rm /tmp/dsh-cover-probe.$$',
      'shopt; set -o; trap -p; declare -f; caller; env | sort',
      'echo $BASH_EXECUTION_STRING | wc -c',
    ].join('\n');
    const fresh = run(plain(probe));
    const folded = run(covered(probe));
    expect(fresh.stdout).toContain('hash:[]');
    expect(folded.stdout).toBe(fresh.stdout);
    expect(folded.stderr).toBe(fresh.stderr);
  });

  it.each([
    ['a syntax error', 'echo before\nif then fi'],
    ['an exit status', 'exit 7'],
    ["the last program replacing the shell, so a signal that kills it is the result's", "sh -c 'kill -KILL $$'"],
  ])('gives %s exactly as a fresh `bash -c` does', (_name, command) => {
    const fresh = run(plain(command));
    const folded = run(covered(command));
    expect({ out: folded.stdout, err: folded.stderr, status: folded.status, signal: folded.signal }).toEqual({
      out: fresh.stdout,
      err: fresh.stderr,
      status: fresh.status,
      signal: fresh.signal,
    });
  });

  it('differs only where documented (docs/security/channels.md): PIPESTATUS before the first pipeline, the listing of BASH_ARGC, /proc/$$/environ', () => {
    const command = [
      'declare -p PIPESTATUS 2>&1',
      'declare -p >/tmp/dsh-cover-argc.$$; grep "^declare -a BASH_ARGC=" /tmp/dsh-cover-argc.$$; rm /tmp/dsh-cover-argc.$$; declare -p BASH_ARGC',
      'tr "\\0" "\\n" </proc/$$/environ | grep -c ^BASH_ENV=',
    ].join('; ');
    expect(run(plain(command)).stdout).toBe(
      `${BASH}: line 1: declare: PIPESTATUS: not found\ndeclare -a BASH_ARGC=()\ndeclare -a BASH_ARGC=([0]="0")\n0\n`,
    );
    expect(run(covered(command)).stdout).toBe('declare -a PIPESTATUS=([0]="0")\ndeclare -a BASH_ARGC=([0]="0")\ndeclare -a BASH_ARGC=([0]="0")\n1\n');
  });

  it.each([['SHELLOPTS', 'xtrace'], ['POSIXLY_CORRECT', '1'], ['BASH_FUNC_f%%', '() { :; }'], ['GLOBIGNORE', '*']])(
    'falls back to the closing shell when the environment sets %s (the prelude might not run as written)',
    (name, value) => {
      const spawn = covered('ls -l /proc/self/fd', { ...ENV, [name]: value });
      expect(spawn.argv.slice(0, 4)).toEqual([BASH, '--norc', '--noprofile', '-c']);
      expect(spawn.env.BASH_ENV).toBeUndefined();
      // Covered all the same: the host's descriptors never reach the closing shell either.
      expect(spawn.stdio[7]).toEqual(expect.any(Number));
      expect(heldAbove2(run(spawn).stdout)).toEqual({});
    },
  );

  it('changes nothing for a process without inheritable descriptors', () => {
    const spawn = plain('true');
    expect(withStraysCovered(spawn, { shellPath: BASH, keep: [], closing: 'prelude' }, [])).toBe(spawn);
  });
});
