// The one-shot bash contract in a per-session container on the real engine.
import { containerEnvironment } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { bashToolContract, CONTRACT_EXECUTOR } from './bash-contract.js';

describeWithEngine(`bash contract: session container${NEEDS_ENGINE}`, () => {
  bashToolContract((workspace) => containerEnvironment({ workspace, executor: CONTRACT_EXECUTOR, container: { image: TEST_IMAGE } }));
});
