// The kubernetes: section of a composition file is checked at start with the file, the key and the reason.
import { validateConfig } from '../../src/plugins/config/config-file.js';
import { resolveEnvironment } from '../../src/cli/cli-options.js';

describe('kubernetes: in a composition file', () => {
  it('accepts every documented key', () => {
    const config = validateConfig(
      {
        kubernetes: {
          image: 'k8s.local/shell:1',
          namespace: 'agents',
          kubeconfig: '/etc/kube/config',
          context: 'prod',
          env: { LANG: 'C.UTF-8' },
          mounts: ['/usr/share/dict:/usr/share/dict:ro'],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: 2, memory: '2Gi', 'ephemeral-storage': '10Gi' } },
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'agents', effect: 'NoSchedule' }],
          runtimeClassName: 'gvisor',
          serviceAccountName: 'agent',
          labels: { team: 'ml' },
          annotations: { 'example.com/owner': 'ml team' },
          podStartTimeoutMs: 30000,
          workspace: { claim: 'workspaces', subPath: 'alice/project' },
          user: '1000:1000',
          leaseSeconds: 20,
          networkPolicy: false,
        },
      },
      '/etc/dsh.yaml',
    );
    expect(config.kubernetes?.image).toBe('k8s.local/shell:1');
  });

  it.each([
    [{ colour: 'red' }, '/etc/dsh.yaml: kubernetes: colour is not a known key'],
    [{ namespace: 'Bad_NS' }, '/etc/dsh.yaml: kubernetes: namespace must be a Kubernetes name (lowercase letters, digits and -), got "Bad_NS"'],
    [{ mounts: ['/a'] }, '/etc/dsh.yaml: kubernetes: mounts entry "/a" must look like src:dst or src:dst:ro'],
    [{ resources: { limits: { memory: 'lots' } } }, '/etc/dsh.yaml: kubernetes: resources.limits.memory must be a Kubernetes quantity such as 500m, 2, 512Mi or 4Gi, got "lots"'],
    [{ resources: { limits: { gpu: '1' } } }, '/etc/dsh.yaml: kubernetes: resources.limits.gpu is not a known resource (known: cpu, memory, ephemeral-storage)'],
    [{ resources: { maximum: {} } }, '/etc/dsh.yaml: kubernetes: resources.maximum is not a known key (known: requests, limits)'],
    [{ nodeSelector: { 'disk type': 'ssd' } }, '/etc/dsh.yaml: kubernetes: nodeSelector.disk type is not a valid label key'],
    [{ tolerations: [{ operator: 'Maybe' }] }, '/etc/dsh.yaml: kubernetes: tolerations[0].operator must be Exists or Equal, got "Maybe"'],
    [{ tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] }, '/etc/dsh.yaml: kubernetes: tolerations[0].value must be absent with operator Exists'],
    [{ labels: { 'dsh-tools.session': 'forged' } }, '/etc/dsh.yaml: kubernetes: labels.dsh-tools.session is reserved: dsh-tools.* labels are set by the server'],
    [{ labels: { team: 'has space' } }, '/etc/dsh.yaml: kubernetes: labels.team must be a label value (at most 63 letters, digits, -, _ or .), got "has space"'],
    [{ podStartTimeoutMs: 0 }, '/etc/dsh.yaml: kubernetes: podStartTimeoutMs must be a positive integer, got 0'],
    [{ workspace: 'nfs' }, '/etc/dsh.yaml: kubernetes: workspace must be hostPath or { claim: <PersistentVolumeClaim name>, subPath?: <relative path> }, got "nfs"'],
    [{ workspace: { claim: 'ws', subPath: '../other' } }, '/etc/dsh.yaml: kubernetes: workspace.subPath must be a relative path without .., got "../other"'],
    [{ user: 'alice' }, '/etc/dsh.yaml: kubernetes: user must be a numeric uid or uid:gid (the pod runs as it), got "alice"'],
    [{ serviceAccountName: '' }, '/etc/dsh.yaml: kubernetes: serviceAccountName must be a Kubernetes name (lowercase letters, digits and -), got ""'],
    [{ env: { 'BAD-NAME': 'x' } }, '/etc/dsh.yaml: kubernetes: env.BAD-NAME is not a valid variable name'],
    ['img', '/etc/dsh.yaml: kubernetes: expected a mapping'],
  ])('refuses %j', (section, message) => {
    expect(() => validateConfig({ kubernetes: section }, '/etc/dsh.yaml')).toThrow(message);
  });

  it('takes the image from --kubernetes, and refuses --container with it', async () => {
    const environment = await resolveEnvironment({ kubernetes: 'k8s.local/shell:1', workspace: '/tmp' });
    expect(environment.kubernetes).toEqual({ image: 'k8s.local/shell:1' });
    await expect(resolveEnvironment({ kubernetes: 'a:1', container: 'b:1' })).rejects.toThrow(
      '--container and --kubernetes (or the container: and kubernetes: sections) exclude each other: choose one',
    );
  });
});
