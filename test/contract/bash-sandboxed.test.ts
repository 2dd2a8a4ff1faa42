// The one-shot bash contract under the bwrap sandbox (workspace-write).
import { sandboxedEnvironment } from '../../src/index.js';
import { NEEDS_BWRAP, describeWithBwrap } from '../support/bwrap.js';
import { bashToolContract, CONTRACT_EXECUTOR } from './bash-contract.js';

describeWithBwrap(`bash contract: bwrap sandbox${NEEDS_BWRAP}`, () => {
  bashToolContract((workspace) => sandboxedEnvironment({ workspace, executor: CONTRACT_EXECUTOR, sandbox: { mode: 'workspace-write' } }));
});
