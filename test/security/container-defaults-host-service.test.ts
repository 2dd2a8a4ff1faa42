// Attack: a container reaches a service of the host itself (on the bridge gateway or another host address).
// By default a session has no route to any host address; `egress: host` is the opt-in that opens it.
import net from 'node:net';
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { connectProbe, containerHost, hostAddresses, run } from './support/container-defaults-kit.js';

const SECRET = 'host-only-secret';

describeWithEngine(`container defaults: no route to the host's own services${NEEDS_ENGINE}`, () => {
  let server: net.Server;
  let port: number;
  beforeAll(async () => {
    server = net.createServer((socket) => socket.end(`${SECRET}\n`));
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function probeHost(container: Parameters<typeof containerHost>[0]): Promise<string[]> {
    const { host, dispose } = await containerHost(container);
    const session = host.openSession({ id: `host-svc-${container?.egress ?? 'default'}` });
    try {
      await run(session, 'true');
      // Listed after the container exists, so a session network's own gateway is among them.
      const addresses = hostAddresses();
      expect(addresses.length).toBeGreaterThan(0);
      const results: string[] = [];
      for (const address of addresses) results.push(await run(session, connectProbe(address, port)));
      return results;
    } finally {
      await session.dispose();
      await dispose();
    }
  }

  it('the default (a session network with egress none) reaches no host address', async () => {
    const results = await probeHost({});
    for (const line of results) expect(line).toMatch(/ -> unreachable$/);
  }, 90_000);

  it('network none reaches no host address either', async () => {
    const results = await probeHost({ network: 'none' });
    for (const line of results) expect(line).toMatch(/ -> unreachable$/);
  }, 90_000);

  it('egress host is the opt-in: the host service answers (the probe itself works)', async () => {
    const results = await probeHost({ egress: 'host' });
    expect(results.filter((line) => line.endsWith(` -> ${SECRET}`)).length).toBeGreaterThan(0);
  }, 90_000);
});
