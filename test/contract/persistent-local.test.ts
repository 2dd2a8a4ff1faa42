// The persistent bash contract on a local PTY.
import { localEnvironment } from '../../src/index.js';
import { CONTRACT_TIMEOUT_MS, persistentBashContract } from './persistent-contract.js';

describe('persistent bash contract: local PTY', () => {
  persistentBashContract((workspace) => localEnvironment({ workspace, shell: 'persistent', persistent: { timeoutMs: CONTRACT_TIMEOUT_MS } }));
});
