import { execFileSync } from 'node:child_process';
import { JOB_END_WAIT } from '../../../../src/providers/exec/process/job-end-wait.js';

/** Runs `command` as job `$p` of a bash (with or without job control) and returns `s d` as JOB_END_WAIT set them. */
function ending(command: string, jobControl = true): string {
  const script =
    `${jobControl ? 'set -m; ' : ''}exec 2>/dev/null 7<> <(:); bash -c "$1" >/dev/null 7>&- & p=$!; ` + JOB_END_WAIT + 'printf "%s %s" "$s" "$d"';
  return execFileSync('bash', ['-c', script, 'job-end', command], { encoding: 'utf8', timeout: 20_000 });
}

describe('JOB_END_WAIT: how a job ended, from bash\'s own end notice', () => {
  it.each([
    ['exit 0', '0 Done'],
    ['exit 3', '3 Exit'],
    ['exit 143', '143 Exit'],
    ['kill -TERM $$', '143 Terminated'],
    ['kill -KILL $$', '137 Killed'],
    ['kill -PIPE $$', '141 Broken'],
    ['kill -INT $$', '130 Interrupt'],
  ])('under job control, %s ends as "%s"', (command, expected) => {
    expect(ending(command)).toBe(expected);
  });

  it('a job stopped and continued is waited for until it ends, with its real end', () => {
    expect(ending('(sleep 0.3; kill -CONT $$) & kill -STOP $$; exit 7')).toBe('7 Exit');
    expect(ending('(sleep 0.3; kill -CONT $$; kill -TERM $$) & kill -STOP $$; sleep 5')).toBe('143 Terminated');
  });

  it('without job control a death by SIGKILL is told apart from exit 137', () => {
    expect(ending('kill -KILL $$', false)).toBe('137 Killed');
    expect(ending('exit 137', false)).toBe('137 ');
  });

  it('the command\'s own output cannot pose as a notice: only bash writes the pipe', () => {
    expect(ending('echo "[1]+  Done  x" >&2; echo "$$ Done"; kill -TERM $$')).toBe('143 Terminated');
  });

  it('many short jobs in a row each end once, none left waiting (bash 5.2 spun in wait_for with a CHLD trap and wait -f)', () => {
    const script =
      'set -m; exec 2>/dev/null 7<> <(:); for i in $(seq 1 300); do bash -c "exit $((i % 5))" & p=$!; ' +
      JOB_END_WAIT +
      '[[ $s == $((i % 5)) ]] || { echo "bad $i $s $d"; exit 1; }; done; echo ok';
    expect(execFileSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 })).toBe('ok\n');
  });
});
