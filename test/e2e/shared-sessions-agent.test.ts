// Issue 31's scripted agent, 2026-07-28 era, over two container replicas
// behind nginx's round-robin: one-shot steps building state in the sandbox,
// a background task streaming numbered lines, an approval answered through
// the proxy (so on either replica), one replica SIGKILLed and started again,
// the other SIGTERMed. Every step's result is checked, every line of the
// task is there with its exit status, and nothing is left once the last
// replica stops (docs/shared-sessions.md).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { LABELS } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { engine } from '../support/container-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { approvingClient, handleIn, modernText, overHttp, type ApprovingClient } from '../support/modern-client.js';
import { describeBehindNginx, NEEDS_NGINX, startRoundRobinNginx, UPSTREAM_HOST, type RoundRobinProxy } from './support/round-robin-nginx.js';
import { freePort, pollUntil, replicaDirs, startReplica as startServe, stopReplicas, type Replica, type ReplicaDirs } from './support/shared-replicas.js';

const TOKEN = 'shared-sessions-agent-token-0123456789';
const RULE = ['approval:', '  rules:', '    - { match: echo approve-me, action: ask, name: agent approval }', ''].join('\n');

const describeWithNginx = describeBehindNginx(describeWithEngine);

describeWithNginx(`shared sessions: a scripted 2026-era agent across two replicas${NEEDS_ENGINE}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  let configFile: string;
  beforeAll(() => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${TOKEN}\n`);
    configFile = path.join(dirs.root, 'dsh.yaml');
    writeFileSync(configFile, RULE);
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  function startReplica(port: number): Promise<Replica> {
    const args = ['--workspace', dirs.workspace, '--container', TEST_IMAGE, '--shared-sessions', '--config', configFile];
    args.push('--token-file', dirs.tokenFile, '--allowed-host', UPSTREAM_HOST, '--reap-interval', '1', '--log-level', 'info', '--drain-timeout', '5');
    return startServe(port, args, dirs.env);
  }

  const sessionContainers = async (sessionId: string) => engine.list([`${LABELS.managed}=1`, `${LABELS.session}=${sessionId}`]);

  it('finishes 20 steps with every result right through a SIGKILL, a restart and a SIGTERM, and leaves nothing', async () => {
    const [portA, portB, portProxy] = [await freePort(), await freePort(), await freePort()];
    let a: Replica | undefined = await startReplica(portA);
    let b: Replica | undefined = await startReplica(portB);
    let proxy: RoundRobinProxy | undefined;
    let approver: ApprovingClient | undefined;
    let sessionId: string | undefined;
    try {
      proxy = await startRoundRobinNginx(portProxy, [portA, portB]);
      approver = approvingClient();
      await overHttp(approver, proxy.url, TOKEN);
      const client = approver.client;
      let handle: string | undefined;
      const call = async (name: string, args: Record<string, unknown>) =>
        modernText(await client.callTool({ name, arguments: { ...args, ...(handle ? { session: handle } : {}) } }));
      // A task's end may be told on whichever result comes next (a line of its own): the steps' own output is the rest.
      const notices: string[] = [];
      const withoutNotices = (text: string) =>
        text
          .split('\n')
          .filter((line) => !(/^background task bash-\d+ .* finished \[/.test(line) && notices.push(line)))
          .join('\n')
          .trim();
      const bash = async (command: string) => withoutNotices(await call('bash', { command, description: 'Scripted step' }));

      // 1: a fresh session's background task streaming numbered lines, then a status of its own; its handle keeps the session.
      const started = await call('bash', { command: 'for i in $(seq 1 40); do echo line-$i; sleep 0.05; done; exit 5', description: 'Stream lines', run_in_background: true });
      handle = handleIn(started);
      if (handle === undefined) throw new Error(`no handle in: ${started}`);
      expect(handle).toBeDefined();
      const taskId = /bash-\d+/.exec(started)?.[0];
      expect(taskId).toBe('bash-1');
      // 2-6: each on whichever replica nginx picks, all in the same sandbox.
      sessionId = await bash('echo 2 > /tmp/steps; echo "$DSH_SESSION_ID"');
      for (let step = 3; step <= 6; step++) expect(await bash(`echo ${step} >> /tmp/steps; echo "$DSH_SESSION_ID"`)).toBe(sessionId);
      // 7: one replica dies without a word; 8: the other serves the session.
      a.child.kill('SIGKILL');
      await a.exited;
      a = undefined;
      expect(await bash('echo 8 >> /tmp/steps; wc -l </tmp/steps')).toBe('6');
      // 9: the dead one is started again on its port; 10-11 go to either.
      a = await startReplica(portA);
      for (let step = 10; step <= 11; step++) expect(await bash(`echo ${step} >> /tmp/steps; echo "$DSH_SESSION_ID"`)).toBe(sessionId);
      // 12: an approval: asked once, answered through the proxy, the command runs once.
      expect(await bash('echo approve-me >> /tmp/approved; echo approve-me')).toBe('approve-me');
      expect(approver.asked).toHaveLength(1);
      expect(await bash('cat /tmp/approved')).toBe('approve-me');
      // 13: the task's whole output and its real status, whoever started it.
      const lines = Array.from({ length: 40 }, (_, i) => `line-${i + 1}`).join('\n');
      expect(await call('task_output', { task_id: taskId, wait: true, timeout_ms: 30_000 })).toBe(`${lines}\n[status: failed, exit code: 5]`);
      // 14: the other replica is stopped as a rolling update stops it: it leaves the session.
      b.child.kill('SIGTERM');
      expect(await b.exited).toBe(0);
      b = undefined;
      expect(await sessionContainers(sessionId!)).toHaveLength(1);
      // 15-18: the survivor serves everything; the task is listed, finished, by the same id.
      expect(await call('task_list', {})).toContain(`${taskId}`);
      for (let step = 16; step <= 18; step++) expect(await bash(`echo ${step} >> /tmp/steps; echo "$DSH_SESSION_ID"`)).toBe(sessionId);
      // 19: a second task gets the next id.
      expect(/bash-\d+/.exec(await call('bash', { command: 'echo second', description: 'Second task', run_in_background: true }))?.[0]).toBe('bash-2');
      // 20: the state the steps built; the first task's end was told at most once.
      expect(await bash('tr "\\n" " " </tmp/steps')).toBe('2 3 4 5 6 8 10 11 16 17 18');
      expect(notices.filter((line) => line.startsWith('background task bash-1 ')).length).toBeLessThanOrEqual(1);
    } finally {
      await approver?.client.close().catch(() => undefined);
      await proxy?.stop();
      // The last replica to stop ends every session it knows of.
      await stopReplicas([a, b]);
    }
    await pollUntil(async () => (await sessionContainers(sessionId!)).length === 0, 'the session container is gone', 20_000);
    expect(await sessionContainers(sessionId!)).toEqual([]);
  }, 180_000);
});
