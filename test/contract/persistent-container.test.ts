// The persistent bash contract on a TTY exec in a session container, on the real engine.
import { containerEnvironment } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { CONTRACT_TIMEOUT_MS, persistentBashContract } from './persistent-contract.js';

describeWithEngine(`persistent bash contract: session container${NEEDS_ENGINE}`, () => {
  persistentBashContract((workspace) =>
    containerEnvironment({ workspace, shell: 'persistent', persistent: { timeoutMs: CONTRACT_TIMEOUT_MS }, container: { image: TEST_IMAGE } }),
  );
});
