// The per-session network: labelled like the containers, created with the session's container, removed
// with it, and removed by the orphan reaper when its server died. `network: none` and an explicit
// engine network (the opt-in to sharing) still work.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { DockerContainerEngine, LABELS, SESSION_BRIDGE_PREFIX, reapDeadInstances } from '../../src/index.js';
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { connectProbe, containerAddresses, containerHost, containerOf, docker, perlListener, run } from './support/container-defaults-kit.js';

const engine = new DockerContainerEngine();
const sessionNetworks = (sessionId: string) => engine.listNetworks([`${LABELS.managed}=1`, `${LABELS.session}=${sessionId}`]);
const networksOf = async (sessionId: string) => Object.keys((await docker.getContainer(await containerOf(sessionId)).inspect()).NetworkSettings.Networks ?? {});

describeWithEngine(`container defaults: session networks${NEEDS_ENGINE}`, () => {
  it('egress internet: a labelled network of its own, a dsh- bridge, gone when the session ends', async () => {
    const { host, dispose } = await containerHost({ egress: 'internet' });
    const session = host.openSession({ id: 'net-own' });
    try {
      await run(session, 'true');
      const [network, ...more] = await sessionNetworks(session.id);
      expect(more).toHaveLength(0);
      expect(network!.labels[LABELS.instance]).toBeTruthy();
      expect(network!.labels[LABELS.hostname]).toBe(os.hostname());
      expect(network!.labels[LABELS.pid]).toBe(String(process.pid));
      const info = await docker.getNetwork(network!.id).inspect();
      expect(info.Options?.['com.docker.network.bridge.name']).toMatch(new RegExp(`^${SESSION_BRIDGE_PREFIX}[0-9a-f]{8}$`));
      expect(info.Internal).toBe(false);
      expect(await networksOf(session.id)).toEqual([info.Name]);
      await session.dispose();
      expect(await sessionNetworks(session.id)).toHaveLength(0);
    } finally {
      await session.dispose();
      await dispose();
    }
  }, 60_000);

  it('egress none (the default) creates no network: the container is on the engine\'s none', async () => {
    const { host, dispose } = await containerHost();
    const session = host.openSession({ id: 'net-default' });
    try {
      expect(await run(session, 'echo works')).toBe('works');
      expect(await networksOf(session.id)).toEqual(['none']);
      expect(await sessionNetworks(session.id)).toHaveLength(0);
    } finally {
      await session.dispose();
      await dispose();
    }
  }, 60_000);

  it('the orphan reaper removes the session networks of dead servers and keeps live ones', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => dead.once('exit', () => resolve(dead.pid!)));
    const labels = (pid: number) => ({ [LABELS.managed]: '1', [LABELS.hostname]: os.hostname(), [LABELS.pid]: String(pid), [LABELS.session]: `reap-${pid}` });
    const suffix = Date.now().toString(16).slice(-8);
    const deadNetwork = await engine.createNetwork({ name: `dsh-reap-dead-${suffix}`, labels: labels(deadPid), egress: 'host', bridgeName: `dsh-d${suffix.slice(-7)}` });
    const liveNetwork = await engine.createNetwork({ name: `dsh-reap-live-${suffix}`, labels: labels(process.pid), egress: 'host', bridgeName: `dsh-l${suffix.slice(-7)}` });
    try {
      await reapDeadInstances(engine);
      const left = (await engine.listNetworks([`${LABELS.managed}=1`])).map((n) => n.id);
      expect(left).not.toContain(deadNetwork);
      expect(left).toContain(liveNetwork);
    } finally {
      await engine.removeNetwork(deadNetwork);
      await engine.removeNetwork(liveNetwork);
    }
  }, 60_000);

  it('an explicit engine network is the opt-in to sharing: sessions on it reach each other', async () => {
    const name = `dsh-sec-shared-${Date.now()}`;
    const created = await docker.createNetwork({ Name: name, Internal: true });
    const { host, dispose } = await containerHost({ network: name }, { tools: ['perl'] });
    const a = host.openSession({ id: 'shared-a' });
    const b = host.openSession({ id: 'shared-b' });
    try {
      await b.call('bash', { command: perlListener(47124, 'shared'), description: 'Listen', run_in_background: true });
      await run(b, `for i in $(seq 50); do ${connectProbe('127.0.0.1', 47124)} | grep -q shared && break; sleep 0.1; done`);
      const [address] = await containerAddresses(b.id);
      expect(await run(a, connectProbe(address!, 47124))).toBe(`${address} -> shared`);
      expect(await sessionNetworks(a.id)).toHaveLength(0);
    } finally {
      await a.dispose();
      await b.dispose();
      await dispose();
      await created.remove();
    }
  }, 90_000);
});
