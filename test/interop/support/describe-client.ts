// One client file = one call of describeClient: the common script over each
// transport the client speaks (2025 era), the idle-expiry run over HTTP, and
// the 2026-07-28 era where the client can pin it. The client runs in its own
// process (its driver); this side only starts servers and asserts. The runs
// of a file go at once (most of their time is waiting on commands and expiry).
import { ensureBuilt } from '../../support/built-server.js';
import { uniqueSleep } from '../../support/process-table.js';
import { waitUntil } from '../../support/process-table.js';
import { approvalTest, badTokenTest, callTests, connectAndListTests, succeeded } from './case-tests.js';
import { casesFor, type ClientSpec, type Transport } from './client-spec.js';
import { nodeFor } from './fixture.js';
import { runDriver, type CaseOutcome, type DriverResults } from './run-driver.js';
import { startServers, type InteropServers } from './servers.js';

const DRIVER_TIMEOUT_MS = 150_000;

export function describeClient(spec: ClientSpec): void {
  const runtime = nodeFor(spec.node, spec.packageName);
  if ('missing' in runtime) {
    describe.skip(`${spec.title} (skipped: ${runtime.missing})`, () => {
      test('the common script', () => undefined);
    });
    return;
  }
  const node = runtime.node;

  describe(`${spec.title} (Node ${spec.node})`, () => {
    let servers: InteropServers;
    const runs: Array<() => Promise<void>> = [];
    beforeAll(async () => {
      ensureBuilt();
      servers = await startServers();
      await Promise.all(runs.map((run) => run()));
    }, DRIVER_TIMEOUT_MS + 60_000);
    afterAll(() => servers?.stop());

    const configFor = (transport: Transport, era: 'legacy' | 'modern', cases: string[], marker = '') => {
      const target = transport === 'stdio' ? { server: servers.stdio } : { url: servers.http.url.href, token: servers.http.token };
      return { transport, era, cases, marker, quietSeconds: 4, quietTimeoutMs: 3000, ...target };
    };

    /** Registers one driver run (started with the others once the servers are up); the tests read its outcomes. */
    const driverRun = (config: () => Record<string, unknown>, whenWaiting?: () => Promise<void>) => {
      let results: DriverResults = {};
      let log = '';
      runs.push(async () => {
        try {
          ({ results, log } = await runDriver({ node, driver: spec.driver, config: config(), timeoutMs: DRIVER_TIMEOUT_MS, whenWaiting }));
        } catch (error) {
          log = String(error);
        }
      });
      return (name: string): CaseOutcome => {
        const outcome = results[name];
        if (!outcome) throw new Error(`case "${name}" has no result; driver log:\n${log}`);
        return outcome;
      };
    };

    for (const transport of spec.transports) {
      describe(`${transport}, 2025 era`, () => {
        const marker = uniqueSleep();
        const outcome = driverRun(() => configFor(transport, 'legacy', casesFor(spec, transport), marker));
        connectAndListTests(spec, outcome, 'legacy');
        callTests(spec, outcome, () => marker, transport);
        if (transport === 'http') badTokenTest(outcome);
      });
    }

    if (spec.transports.includes('http') && spec.session) {
      describe('http, session expiry (--idle-timeout 5)', () => {
        const idleEnds = () => (servers.expiring.stderr().match(/ session \S+ ended \(idle\)/g) ?? []).length;
        let endsBefore = 0;
        const outcome = driverRun(
          () => {
            endsBefore = idleEnds();
            return { ...configFor('http', 'legacy', ['connect', 'expiry']), url: servers.expiring.url.href, token: servers.expiring.token };
          },
          () => waitUntil(() => idleEnds() > endsBefore, 'the server ends the idle session'),
        );
        test('a call after the session expired (or was kept for its open event stream) settles: a new session or a clear "session" error, not a hang', () => {
          const expiry = succeeded(outcome, 'expiry');
          expect((expiry.before as { text: string }).text).toContain('before-expiry');
          // Some clients turn the failure into the tool's text (what an agent hands the model).
          // OpenAI Agents hands the model a generic text; its cause is kept aside.
          const view = expiry.after as { text: string; cause?: string } | undefined;
          const after = view ? `${view.text} ${view.cause ?? ''}` : (expiry.afterError as { error: string }).error;
          // A client that holds its event stream keeps its session (issue 22 item 4): then the call simply works.
          const released = idleEnds() > endsBefore;
          expect({ released, after }).toEqual({ released, after: expect.stringMatching(released ? /after-expiry|404|session/i : /after-expiry/) });
        });
      });
    }

    if (spec.modernEra) {
      for (const transport of spec.transports) {
        describe(`${transport}, 2026-07-28 era (pinned)`, () => {
          const outcome = driverRun(() => configFor(transport, 'modern', ['connect', 'list', 'echo', 'approval']));
          connectAndListTests(spec, outcome, 'modern');
          approvalTest(spec, outcome, 'modern');
        });
      }
    }
  });
}
