// Attack: session A connects to a listener in session B's container and reads its data.
// Every session now has a network of its own (or none), so B's listener answers only inside B.
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { connectProbe, containerAddresses, containerHost, perlListener, run } from './support/container-defaults-kit.js';

const PORT = 47123;
const SECRET = 'session-b-secret';

describeWithEngine(`container defaults: one session cannot reach another session's listener${NEEDS_ENGINE}`, () => {
  it.each(['none', 'host', 'internet'] as const)('egress %s: A gets nothing from B on any address B has', async (egress) => {
    const { host, dispose } = await containerHost(egress === 'none' ? {} : { egress }, { tools: ['perl'] });
    const b = host.openSession({ id: `xs-b-${egress}` });
    const a = host.openSession({ id: `xs-a-${egress}` });
    try {
      const started = await b.call('bash', { command: perlListener(PORT, SECRET), description: 'Listen', run_in_background: true });
      expect(started.isError).toBeFalsy();
      // Positive control: the listener serves inside B (polled until it is up).
      const inside = await run(b, `for i in $(seq 50); do ${connectProbe('127.0.0.1', PORT)} | grep -q '${SECRET}' && break; sleep 0.1; done; ${connectProbe('127.0.0.1', PORT)}`);
      expect(inside).toBe(`127.0.0.1 -> ${SECRET}`);
      const targets = await containerAddresses(b.id);
      await run(a, 'true');
      for (const address of targets) {
        expect(await run(a, connectProbe(address, PORT))).toBe(`${address} -> unreachable`);
      }
      // B's loopback is B's own: A's loopback does not lead there.
      expect(await run(a, connectProbe('127.0.0.1', PORT))).toBe('127.0.0.1 -> unreachable');
      // With a session network B has an address of its own; without one it has none to reach.
      expect(targets).toHaveLength(egress === 'none' ? 0 : 1);
    } finally {
      await a.dispose();
      await b.dispose();
      await dispose();
    }
  }, 90_000);
});
