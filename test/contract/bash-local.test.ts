// The one-shot bash contract on this machine's shell.
import { localEnvironment } from '../../src/index.js';
import { bashToolContract, CONTRACT_EXECUTOR } from './bash-contract.js';

describe('bash contract: local shell', () => {
  bashToolContract((workspace) => localEnvironment({ workspace, executor: CONTRACT_EXECUTOR }));
});
