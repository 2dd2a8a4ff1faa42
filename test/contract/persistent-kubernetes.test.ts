// The persistent bash contract on a TTY exec in a session pod, on a real cluster ($KUBECONFIG).
import { kubernetesEnvironment } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { CONTRACT_TIMEOUT_MS, persistentBashContract } from './persistent-contract.js';

describeWithCluster(`persistent bash contract: session pod${NEEDS_CLUSTER}`, () => {
  persistentBashContract((workspace) =>
    kubernetesEnvironment({ workspace, shell: 'persistent', persistent: { timeoutMs: CONTRACT_TIMEOUT_MS }, kubernetes: { image: KIT_IMAGE } }),
  );
});
