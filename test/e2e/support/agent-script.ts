// Issue 31's scripted agent, 2026-07-28 era, over two `serve --shared-sessions`
// replicas behind nginx's round-robin, the same 20 steps on every engine:
// one-shot steps building state in the sandbox, the session's one persistent
// shell building state (cwd, an export, a function) that every replica sees,
// a background task streaming numbered lines, an approval answered through the proxy (so on either
// replica), one replica SIGKILLed and started again, the other SIGTERMed.
// Every step's result is checked, every line of the task is there with its
// exit status, and nothing of the session is left once the last replica stops
// (docs/shared-sessions.md). What differs by engine comes in as an AgentEngine.
import { approvingClient, handleIn, modernText, overHttp, type ApprovingClient } from '../../support/modern-client.js';
import { startRoundRobinNginx, type RoundRobinProxy } from './round-robin-nginx.js';
import { freePort, stopReplicas, type Replica } from './shared-replicas.js';
import { pollUntilAsync } from '../../support/poll-async.js';

/** The token the script's client sends: the replicas' token file must hold `agent:<it>`. */
export const AGENT_TOKEN = 'shared-sessions-agent-token-0123456789';

/** The config section the replicas need: step 12's command is asked about. */
export const AGENT_APPROVAL = { rules: [{ match: 'echo approve-me', action: 'ask', name: 'agent approval' }] } as const;

/** The engine-specific parts of the script. */
export interface AgentEngine {
  /** Starts `serve --http <port> --shared-sessions --shell both …` as the engine needs it (with AGENT_APPROVAL and AGENT_TOKEN). */
  startReplica(port: number): Promise<Replica>;
  /** The session's sandboxes (containers or pods) now. */
  sandboxes(sessionId: string): Promise<readonly string[]>;
  /** Everything of the session still there (its sandboxes, and Leases where there are some), by name. */
  leftovers(sessionId: string): Promise<readonly string[]>;
  /** How long the last replica's stop may take to remove them. */
  readonly goneWithinMs: number;
  /** Resolves once the SIGKILLed replica no longer counts as alive (else the last stop would leave the session to it). */
  killedReplicaGone?(): Promise<void>;
}

/** Runs the 20 steps; resolves once nothing of the session is left. */
export async function runAgentScript(engine: AgentEngine): Promise<void> {
  const [portA, portB, portProxy] = [await freePort(), await freePort(), await freePort()];
  let a: Replica | undefined = await engine.startReplica(portA);
  let b: Replica | undefined;
  let proxy: RoundRobinProxy | undefined;
  let approver: ApprovingClient | undefined;
  let sessionId: string | undefined;
  try {
    b = await engine.startReplica(portB);
    proxy = await startRoundRobinNginx(portProxy, [portA, portB]);
    approver = approvingClient();
    await overHttp(approver, proxy.url, AGENT_TOKEN);
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
    const shell = async (command: string) => withoutNotices(await call('bash_persistent', { command, description: 'Shell step' }));
    const shellState = 'echo "$PWD $AGENT_VAR $(agent_fn)"';
    const builtState = '/tmp/agent-ws kept fn-ok';

    // 1: a fresh session's background task streaming numbered lines, then a status of its own; its handle keeps the session.
    const started = await call('bash', { command: 'for i in $(seq 1 40); do echo line-$i; sleep 0.05; done; exit 5', description: 'Stream lines', run_in_background: true });
    handle = handleIn(started);
    if (handle === undefined) throw new Error(`no handle in: ${started}`);
    const taskId = /bash-\d+/.exec(started)?.[0];
    expect(taskId).toBe('bash-1');
    // 2-6: each on whichever replica nginx picks, all in the same sandbox; 3 builds the persistent shell's state.
    sessionId = await bash('echo 2 > /tmp/steps; echo "$DSH_SESSION_ID"');
    expect(sessionId).toMatch(/\S/);
    expect(await shell('mkdir -p /tmp/agent-ws && cd /tmp/agent-ws && export AGENT_VAR=kept && agent_fn() { echo fn-ok; }; echo 3 >> /tmp/steps; echo built')).toBe('built');
    for (let step = 4; step <= 6; step++) expect(await bash(`echo ${step} >> /tmp/steps; echo "$DSH_SESSION_ID"`)).toBe(sessionId);
    // 7: one replica dies without a word; 8: the other serves the session.
    a.child.kill('SIGKILL');
    await a.exited;
    a = undefined;
    expect(await bash('echo 8 >> /tmp/steps; wc -l </tmp/steps')).toBe('6');
    // 9: the dead one is started again on its port; 10-11 go to either, 10 to the shell whose state outlived a replica.
    a = await engine.startReplica(portA);
    expect(await shell(`echo 10 >> /tmp/steps; ${shellState}`)).toBe(builtState);
    expect(await bash('echo 11 >> /tmp/steps; echo "$DSH_SESSION_ID"')).toBe(sessionId);
    // 12: an approval: asked once, answered through the proxy, the command runs once.
    expect(await bash('echo approve-me >> /tmp/approved; echo approve-me')).toBe('approve-me');
    expect(approver.asked).toHaveLength(1);
    expect(await bash('cat /tmp/approved')).toBe('approve-me');
    // 13: the task's whole output and its real status, whoever started it.
    const lines = Array.from({ length: 40 }, (_, i) => `line-${i + 1}`).join('\n');
    expect(await call('task_output', { task_id: taskId, wait: true, timeout_ms: 30_000 })).toBe(`${lines}\n[status: failed, exit code: 5]`);
    // 14: the other replica is stopped as a rolling update stops it: it leaves the session, whose sandbox stays.
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    b = undefined;
    expect(await engine.sandboxes(sessionId)).toHaveLength(1);
    // 15-18: the survivor serves everything; the task is listed, finished, by the same id.
    expect(await call('task_list', {})).toContain(`${taskId}`);
    for (let step = 16; step <= 17; step++) expect(await bash(`echo ${step} >> /tmp/steps; echo "$DSH_SESSION_ID"`)).toBe(sessionId);
    // 18: the shell, still the same one after both replicas' stops.
    expect(await shell(`echo 18 >> /tmp/steps; ${shellState}`)).toBe(builtState);
    // 19: a second task gets the next id.
    expect(/bash-\d+/.exec(await call('bash', { command: 'echo second', description: 'Second task', run_in_background: true }))?.[0]).toBe('bash-2');
    // 20: the state the steps built; the first task's end was told at most once.
    expect(await bash('tr "\\n" " " </tmp/steps')).toBe('2 3 4 5 6 8 10 11 16 17 18');
    expect(notices.filter((line) => line.startsWith('background task bash-1 ')).length).toBeLessThanOrEqual(1);
    await engine.killedReplicaGone?.();
  } finally {
    await approver?.client.close().catch(() => undefined);
    await proxy?.stop();
    // The last replica to stop ends every session it knows of.
    await stopReplicas([a, b]);
  }
  const id = sessionId!;
  await pollUntilAsync(async () => (await engine.leftovers(id)).length === 0, 'nothing of the session is left', engine.goneWithinMs);
  expect(await engine.leftovers(id)).toEqual([]);
}
