// The one-shot bash contract in a per-session pod on a real cluster ($KUBECONFIG).
import { kubernetesEnvironment } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { bashToolContract, CONTRACT_EXECUTOR } from './bash-contract.js';

describeWithCluster(`bash contract: session pod${NEEDS_CLUSTER}`, () => {
  bashToolContract((workspace) => kubernetesEnvironment({ workspace, executor: CONTRACT_EXECUTOR, kubernetes: { image: KIT_IMAGE } }));
});
