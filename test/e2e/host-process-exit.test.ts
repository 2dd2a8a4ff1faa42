// A program embedding the built package exits by itself: one that forgets a
// persistent shell (closed with warning DSH_FORGOTTEN_SHELL once nothing else
// holds the process), and one that awaits host.dispose() at its top level
// (the reaper watchdog's stop must not leave that await unsettled).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt, ROOT } from '../support/built-server.js';

beforeAll(() => ensureBuilt(), 180_000);

function runScript(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { createHost, localEnvironment } = await import(process.argv[1]);\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, path.join(ROOT, 'dist/index.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

it('a forgotten persistent shell is closed with a warning naming it, and the program exits 0', async () => {
  const run = await runScript(`
    const host = await createHost(...localEnvironment({ workspace: '/tmp', shell: 'persistent' }));
    const result = await host.openSession({ cwd: '/tmp' }).call('bash', { command: 'echo "pid $$"' });
    console.log(result.content[0].text);
  `);
  expect(run.code).toBe(0);
  const pid = /^pid (\d+)$/m.exec(run.stdout)?.[1];
  expect(pid).toBeDefined();
  expect(run.stderr).toContain('DSH_FORGOTTEN_SHELL');
  expect(run.stderr).toContain('closing 1 persistent shell(s) nobody disposed');
  expect(() => process.kill(Number(pid), 0)).toThrow();
}, 60_000);

it('a top-level await of host.dispose() settles, and the watchdog is gone', async () => {
  const run = await runScript(`
    const host = await createHost(...localEnvironment({ workspace: '/tmp' }));
    await host.call('bash', { command: 'true', description: 'Run' });
    const { reaperWatchdogPid } = await import(process.argv[1].replace(/index\\.js$/, 'providers/exec/process/reaper-watchdog.js'));
    console.log('watchdog ' + reaperWatchdogPid());
    await host.dispose();
    console.log('disposed');
  `);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('disposed');
  const pid = /^watchdog (\d+)$/m.exec(run.stdout)?.[1];
  expect(pid).toBeDefined();
  expect(() => process.kill(Number(pid), 0)).toThrow();
}, 60_000);
