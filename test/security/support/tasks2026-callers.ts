// Two callers (two tokens of one token file) of one built HTTP server, each
// with a raw 2026-07-28 driver that declares the tasks extension.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { httpServerForSuite, type SuiteServer } from '../../support/suite-http-server.js';
import { httpDriver, type ModernRaw } from '../../support/raw-modern.js';

const ALICE = 'alice-tasks2026-token-0123456789';
const BOB = 'bob-tasks2026-token-0123456789ab';

export interface TwoCallers {
  readonly suite: SuiteServer;
  alice(): ModernRaw;
  bob(): ModernRaw;
}

/** Registers the suite's server (beforeAll/afterAll) and hands out a driver per caller. */
export function twoCallers(): TwoCallers {
  const suite = httpServerForSuite({
    token: ALICE,
    tokenFile: (dirs) => {
      const tokens = path.join(dirs.root, 'tokens');
      writeFileSync(tokens, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
      return tokens;
    },
  });
  return {
    suite,
    alice: () => httpDriver(suite.server.url, ALICE),
    bob: () => httpDriver(suite.server.url, BOB),
  };
}
