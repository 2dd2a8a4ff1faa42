// Issue 18 row 15: `env -u DSH_PROCESS_TAG setsid sleep …` escapes the tag
// reaper of the unconfined local shell (documented there). Under bwrap the
// leftovers are found by containment (the command's own PID namespace), so
// dropping or rewriting the tag changes nothing: they are killed and counted.
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { containerExecHost, type ContainerExecHost } from './support/container-exec-host.js';
import { isAlivePid } from '../support/process-table.js';
import { confinedRig, type ConfinedRig } from '../support/sandbox-test-kit.js';

/**
 * Shell that waits until `count` processes run as `sleep <pattern>` and no `setsid` is left: under job control a
 * background job leads its own group, so setsid forks and its parent lingers a moment. Caught then, the daemon
 * is two processes, both killed and counted (a full run under load counted 4 where 2 were meant).
 */
const daemonsSettled = (count: number, pattern: string) =>
  `until [ "$(ps -eo args= | grep -c '^sleep ${pattern}$')" = ${count} ] && ! ps -eo comm= | grep -qx setsid; do :; done`;

describeWithBwrap(`leftovers that drop their process tag in the sandbox (issue 18 row 15)${NEEDS_BWRAP}`, () => {
  let rig: ConfinedRig;
  beforeEach(() => {
    rig = confinedRig('workspace-write');
  });
  afterEach(() => rig.dispose());

  it('a daemon started with `env -u DSH_PROCESS_TAG setsid` and one with an empty environment are killed and counted', async () => {
    const result = await rig.run({
      command: `env -u DSH_PROCESS_TAG setsid sleep 1000 </dev/null >/dev/null 2>&1 & env -i setsid sleep 1001 </dev/null >/dev/null 2>&1 & ${daemonsSettled(2, '100[01]')}; echo started`,
    });
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, leftoversKilled: 2 });
  });

  it('a daemon that rewrites its tag to look like another call is killed and counted too', async () => {
    const result = await rig.run({ command: `DSH_PROCESS_TAG=someone.else setsid sleep 1002 </dev/null >/dev/null 2>&1 & ${daemonsSettled(1, '1002')}` });
    expect(result.leftoversKilled).toBe(1);
  });

  it('the host sees none of them afterwards', async () => {
    const result = await rig.run({ command: `env -u DSH_PROCESS_TAG setsid sleep 1003 </dev/null >/dev/null 2>&1 & ${daemonsSettled(1, '1003')}; echo started` });
    expect(result.leftoversKilled).toBe(1);
    const { execSync } = await import('node:child_process');
    const survivors = execSync("ps -eo pid=,args= | grep -E 'sleep 100[0-3]$' | grep -v grep || true").toString().trim();
    expect(survivors.split('\n').filter(Boolean).map((line) => Number(line.trim().split(/\s+/)[0])).filter(isAlivePid)).toEqual([]);
  });
});

// Issue 33 item 5: in a container the one-shot wrapper's scan finds leftovers by tag. A command that sets
// the wrapper's own tag (`<tag>w`) looked like one of the wrapper's forks and was not counted; the
// wrapper's forks are now told apart by pid (its children), so either tag counts.
describeWithEngine(`container exec: a leftover that takes the wrapper's own tag${NEEDS_ENGINE}`, () => {
  let ct: ContainerExecHost;
  beforeAll(async () => {
    ct = await containerExecHost('sec-wrapper-tag');
  });
  afterAll(() => ct.dispose());

  it('a setsid daemon carrying the bare tag is killed and counted', async () => {
    const result = await ct.run(`setsid sleep 1010 </dev/null >/dev/null 2>&1 & ${daemonsSettled(1, '1010')}; echo started`);
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, leftoversKilled: 1 });
  });

  it('a setsid daemon that sets DSH_EXEC_TAG=<tag>w is killed and counted, and none is left in the container', async () => {
    // The command ends only once the daemon runs as `sleep` with the wrapper's tag: on a loaded machine the
    // background fork could otherwise still be the command's own process (group-killed, not a daemon yet).
    const result = await ct.run(`DSH_EXEC_TAG="\${DSH_EXEC_TAG}w" setsid sleep 1011 </dev/null >/dev/null 2>&1 & ${daemonsSettled(1, '1011')}; echo started`);
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: 0, leftoversKilled: 1 });
    const survivors = await ct.run('ps -eo args= 2>/dev/null | grep -c "^sleep 1011$" || true');
    expect(survivors.stdout).toBe('0\n');
  });

  it('its own stdin helper is still never counted', async () => {
    const runs = await Promise.all(Array.from({ length: 8 }, () => ct.run('true', 'x'.repeat(200_000))));
    expect(runs.map((run) => run.leftoversKilled ?? 0)).toEqual(Array(8).fill(0));
  });
});
