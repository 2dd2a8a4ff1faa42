// The persistent bash contract on a PTY under the bwrap sandbox (workspace-write).
import { sandboxedEnvironment } from '../../src/index.js';
import { NEEDS_BWRAP, describeWithBwrap } from '../support/bwrap.js';
import { CONTRACT_TIMEOUT_MS, persistentBashContract } from './persistent-contract.js';

describeWithBwrap(`persistent bash contract: bwrap sandbox${NEEDS_BWRAP}`, () => {
  persistentBashContract((workspace) =>
    sandboxedEnvironment({
      workspace,
      shell: 'persistent',
      persistent: { timeoutMs: CONTRACT_TIMEOUT_MS },
      sandbox: { mode: 'workspace-write' },
    }),
  );
});
