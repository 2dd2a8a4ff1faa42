// The persistent shell's commands carry the shell's tag: daemons they start
// that leave the shell's process tree die when the shell is reset or closed.
import { createHost, type DshHost } from '../../../src/index.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { tempWorkspace } from '../../support/sandbox-test-kit.js';
import { processesWith, survivors, uniqueSleep, waitUntil } from '../../support/process-table.js';

const daemons = (s: string) =>
  `setsid sleep ${s} >/dev/null 2>&1 & ( (setsid sleep ${s} >/dev/null 2>&1 &) & ); nohup sleep ${s} >/dev/null 2>&1 & disown; echo started`;

describe('persistent bash: escaped daemons', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost;
  beforeEach(async () => {
    ws = tempWorkspace('dsh-persistent-leftovers-');
    host = await createHost(...localEnvironment({ workspace: ws.dir, shell: 'persistent' }));
  });
  afterEach(async () => {
    await host.dispose();
    ws.remove();
  });

  it('die when the shell exits and is reset', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    await session.call('bash', { command: daemons(sleep) });
    await waitUntil(() => processesWith(sleep).length === 3, 'the daemons run');
    await session.call('bash', { command: 'exit' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('die when the session (and its shell) is closed', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: ws.dir });
    await session.call('bash', { command: daemons(sleep) });
    await waitUntil(() => processesWith(sleep).length === 3, 'the daemons run');
    await session.dispose();
    expect(await survivors(sleep)).toEqual([]);
  });
});
