// The pod's volumes for a session's mounts: protected paths and masks keep the hostPath type the session
// layer saw (the kubelet must not create a missing one), and on a claimed workspace they become subPaths.
import { podManifest } from '../../../../src/providers/backends/kubernetes/pod-manifest.js';
import { resolveKubernetesConfig } from '../../../../src/providers/backends/kubernetes/kubernetes-config.js';
import type { ContainerSpec } from '../../../../src/providers/exec/engine/container-engine.js';

const spec = (mounts: ContainerSpec['mounts']): ContainerSpec => ({
  image: 'img', name: 'dsh-x', labels: {}, env: {}, mounts, readOnlyRootfs: false, capabilities: [], noNewPrivileges: true,
});
const mounts: ContainerSpec['mounts'] = [
  { source: '/srv/ws', target: '/srv/ws', readOnly: false },
  { source: '/srv/ws/.git', target: '/srv/ws/.git', readOnly: true, kind: 'directory' },
  { source: '/srv/ws/.envrc', target: '/srv/ws/.envrc', readOnly: true, kind: 'file' },
  { source: '/tmp/dsh-ct-1/.masked-file', target: '/srv/ws/dsh.yaml', readOnly: true, kind: 'file' },
];

describe('pod manifest mounts', () => {
  it('hostPath: typed volumes for what the session layer looked at, untyped for the rest', () => {
    const pod = podManifest(spec(mounts), resolveKubernetesConfig({ image: 'img' }), { namespace: 'ns', workspace: '/srv/ws' });
    expect(pod.spec!.volumes!.map((v) => v.hostPath)).toEqual([
      { path: '/srv/ws' },
      { path: '/srv/ws/.git', type: 'Directory' },
      { path: '/srv/ws/.envrc', type: 'File' },
      { path: '/tmp/dsh-ct-1/.masked-file', type: 'File' },
    ]);
    expect(pod.spec!.containers[0]!.volumeMounts!.map((m) => m.readOnly)).toEqual([false, true, true, true]);
    expect(pod.spec!.containers[0]!.securityContext).toMatchObject({ allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] } });
  });

  it('a claimed workspace: protected paths are subPaths of the claim, a mask stays a hostPath', () => {
    const config = resolveKubernetesConfig({ image: 'img', workspace: { claim: 'work', subPath: 'proj' } });
    const pod = podManifest(spec(mounts), config, { namespace: 'ns', workspace: '/srv/ws' });
    const volumeMounts = pod.spec!.containers[0]!.volumeMounts!;
    expect(volumeMounts.map((m) => m.subPath)).toEqual(['proj', 'proj/.git', 'proj/.envrc', undefined]);
    expect(pod.spec!.volumes![3]!.hostPath).toEqual({ path: '/tmp/dsh-ct-1/.masked-file', type: 'File' });
  });

  it('refuses noexec, which a hostPath cannot carry', () => {
    expect(() => resolveKubernetesConfig({ image: 'img', mounts: ['/a:/a:ro,noexec'] })).toThrow('invalid kubernetes config: mounts entry "/a:/a:ro,noexec": noexec is not available for a hostPath volume');
  });
});
