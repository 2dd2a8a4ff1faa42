// The shell that keeps an embedding host's inherited descriptors from bwrap and the command (issue 18 row 3).
import { spawn, spawnSync } from 'node:child_process';
import { closingArgv } from '../../../../src/providers/exec/process/stray-descriptors.js';

describe('the stray-descriptor closer', () => {
  it('closes every descriptor above 2 but the kept ones, then runs the command in place', async () => {
    const argv = closingArgv(['/bin/bash', '-c', 'echo $$; ls /proc/self/fd'], '/bin/bash', [5]);
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    const [pid, ...fds] = out.trim().split('\n').map(Number);
    // The same process (exec in place), and of 3, 5 and 6 only 5 is left (3 is ls's own directory).
    expect(pid).toBe(child.pid);
    expect(fds.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 5]);
  });

  it("leaves the command's environment as a direct spawn gives it, even with a socket as stdin (no ~/.bashrc of its own)", () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', MARK: 'kept' };
    const argv = ['/bin/bash', '-c', 'env | sort'];
    const direct = spawnSync(argv[0]!, argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] }).stdout.toString();
    const closing = closingArgv(argv, '/bin/bash');
    const closed = spawnSync(closing[0]!, closing.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] }).stdout.toString();
    expect(closed).toContain('MARK=kept');
    expect(closed).toBe(direct);
  });
});
