// Leftover processes through the host: the model-visible line, and every
// way a call can end (finish, task end, session and host disposal), with
// and without the bwrap sandbox.
import { spawnSync } from 'node:child_process';
import { BwrapSandboxProvider, createHost, type DshHost } from '../../../src/index.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { sandboxedEnvironment } from '../../../src/plugins/sandboxed.environment.js';
import { tempWorkspace } from '../../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../support/bwrap.js';
import { processesWith, survivors, uniqueSleep, waitUntil } from '../../support/process-table.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const NOTICE_1 = '[killed 1 leftover process when the command ended; use run_in_background to keep one running]';
const escapes = (s: string) =>
  `setsid sleep ${s} >/dev/null 2>&1 & nohup sleep ${s} >/dev/null 2>&1 & (set -m; sleep ${s} >/dev/null 2>&1 &); ` +
  `( (sleep ${s} >/dev/null 2>&1 &) & ); sleep ${s} >/dev/null 2>&1 & disown; ` +
  `perl -e 'setpgrp(0, 0); exec "sleep", $ARGV[0]' ${s} >/dev/null 2>&1 &`;

describe('bash: leftover processes, unconfined', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost;
  beforeEach(async () => {
    ws = tempWorkspace('dsh-leftovers-');
    host = await createHost(...localEnvironment({ workspace: ws.dir, executor: { graceMs: 200 } }));
  });
  afterEach(async () => {
    await host.dispose();
    ws.remove();
  });

  it('puts the count just before the exit marker', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    const result = await session.call('bash', { command: `echo out; setsid sleep ${sleep} >/dev/null 2>&1 & exit 3`, description: 'Leave one' });
    expect(text(result)).toBe(`out\n${NOTICE_1}\n[exit code: 3]`);
    const two = await session.call('bash', {
      command: `setsid sleep ${sleep} >/dev/null 2>&1 & nohup sleep ${sleep} >/dev/null 2>&1 &`,
      description: 'Leave two',
    });
    expect(text(two)).toBe(
      '(no output)\n[killed 2 leftover processes when the command ended; use run_in_background to keep one running]',
    );
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills every escape pattern of a foreground call', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    const result = await session.call('bash', { command: `${escapes(sleep)} echo done`, description: 'Escape six ways' });
    expect(text(result)).toMatch(/^done\n\[killed \d+ leftover processes when the command ended;/);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills a background task’s escapees when its session is disposed', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    await session.call('bash', { command: `${escapes(sleep)} sleep ${sleep}`, description: 'Escape', run_in_background: true });
    await waitUntil(() => processesWith(sleep).length >= 7, 'the task started its escapees');
    await session.dispose();
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills a running foreground call’s escapees when the host is disposed', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    const call = session.call('bash', { command: `${escapes(sleep)} sleep ${sleep}`, description: 'Escape' });
    await waitUntil(() => processesWith(sleep).length >= 7, 'the call started its escapees');
    await host.dispose();
    await call;
    expect(await survivors(sleep)).toEqual([]);
  });
});

describeWithBwrap(`bash: leftover processes under the bwrap sandbox${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost;
  beforeAll(async () => {
    ws = tempWorkspace('dsh-leftovers-sandbox-');
    host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, executor: { graceMs: 200 } }));
  });
  afterAll(async () => {
    await host.dispose();
    ws.remove();
  });

  it('leaves no escapee of a foreground call', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    const result = await session.call('bash', { command: `${escapes(sleep)} echo done`, description: 'Escape six ways' });
    // Counted inside the namespace (namespace-reaper.ts): the six sleeps, and any of their parents still exiting.
    expect(text(result)).toMatch(/^done\n\[killed \d+ leftover processes when the command ended; use run_in_background to keep one running\]$/);
    expect(await survivors(sleep)).toEqual([]);
    await session.dispose();
  });

  it('needs no reaper there: the PID namespace alone kills every escapee (untagged, raw bwrap spawn)', async () => {
    const sleep = uniqueSleep();
    const argv = new BwrapSandboxProvider().wrap(['bash', '-c', `${escapes(sleep)} echo done`], { mode: 'workspace-write', workspaceRoot: ws.dir });
    const child = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: ws.dir });
    expect(child.stdout).toBe('done\n');
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills a background task’s escapees when it is killed', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    const started = await session.call('bash', { command: `${escapes(sleep)} sleep ${sleep}`, description: 'Escape', run_in_background: true });
    const id = /started background task (\S+)/.exec(text(started))![1]!;
    await waitUntil(() => processesWith(sleep).length >= 7, 'the task started its escapees');
    await session.call('task_kill', { task_id: id });
    expect(await survivors(sleep)).toEqual([]);
    await session.dispose();
  });
});
