// The session pod's seccomp profile (issue 33 item 1): the container profile, which refuses set-id modes,
// installed into the local kubelet by `auto`; a root pod with a writable mount is refused where it cannot be.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sessionSeccompProfile } from '../../../../src/providers/exec/engine/container-seccomp.js';
import type { ContainerSpec } from '../../../../src/providers/exec/engine/container-engine.js';
import { resolveKubernetesConfig } from '../../../../src/providers/backends/kubernetes/kubernetes-config.js';
import { podManifest } from '../../../../src/providers/backends/kubernetes/pod-manifest.js';
import { localKubeletSeccompRoots, PodSeccompChooser, sessionProfileName } from '../../../../src/providers/backends/kubernetes/pod-seccomp.js';

const spec = (readOnly: boolean): ContainerSpec =>
  ({ name: 'dsh-s1', image: 'img', labels: {}, env: {}, mounts: [{ source: '/ws', target: '/ws', readOnly }], capabilities: [], noNewPrivileges: true, readOnlyRootfs: false }) as unknown as ContainerSpec;

let scratch: string;
beforeEach(() => (scratch = mkdtempSync(path.join(os.tmpdir(), 'dsh-pod-seccomp-'))));
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe('session pod seccomp profile', () => {
  it('the pod and its container carry the profile the engine chose; RuntimeDefault when none is given', () => {
    const config = resolveKubernetesConfig({ image: 'img' });
    const localhost = { type: 'Localhost', localhostProfile: 'dsh-tools/session-x.json' } as const;
    const pod = podManifest(spec(false), config, { namespace: 'ns', seccompProfile: localhost });
    expect(pod.spec!.securityContext!.seccompProfile).toEqual(localhost);
    expect(pod.spec!.containers[0]!.securityContext!.seccompProfile).toEqual(localhost);
    const plain = podManifest(spec(false), config, { namespace: 'ns' });
    expect(plain.spec!.securityContext!.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    expect(plain.spec!.containers[0]!.securityContext!.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });

  it('auto installs the container profile under every kubelet seccomp root and uses it', () => {
    const roots = [path.join(scratch, 'a'), path.join(scratch, 'b')];
    const chooser = new PodSeccompChooser('auto', undefined, () => roots);
    expect(chooser.profileFor(spec(false))).toEqual({ type: 'Localhost', localhostProfile: sessionProfileName() });
    expect(sessionProfileName()).toMatch(/^dsh-tools\/session-[0-9a-f]{12}\.json$/);
    for (const root of roots) expect(readFileSync(path.join(root, sessionProfileName()), 'utf8')).toBe(sessionSeccompProfile());
  });

  it('auto refuses a root pod with a writable mount when the profile cannot be installed, naming the ways out', () => {
    const blocked = path.join(scratch, 'file');
    writeFileSync(blocked, '');
    for (const roots of [[], [path.join(blocked, 'seccomp')]]) {
      for (const user of [undefined, '0', '0:0']) {
        expect(() => new PodSeccompChooser('auto', user, () => roots).profileFor(spec(false))).toThrow(
          /cannot be installed from here .* Set kubernetes.user to an unprivileged uid, or install docs\/kubernetes\/session-seccomp.json .* localhost:dsh-tools\/session.json, or set kubernetes.seccompProfile: runtime-default/,
        );
      }
    }
    // Not root, or nothing writable: the runtime's default is enough.
    expect(new PodSeccompChooser('auto', '1000:1000', () => []).profileFor(spec(false))).toEqual({ type: 'RuntimeDefault' });
    expect(new PodSeccompChooser('auto', undefined, () => []).profileFor(spec(true))).toEqual({ type: 'RuntimeDefault' });
  });

  it('runtime-default and localhost:<path> are taken as written', () => {
    expect(new PodSeccompChooser('runtime-default', undefined, () => []).profileFor(spec(false))).toEqual({ type: 'RuntimeDefault' });
    expect(new PodSeccompChooser('localhost:ops/dsh.json', undefined, () => []).profileFor(spec(false))).toEqual({ type: 'Localhost', localhostProfile: 'ops/dsh.json' });
  });

  it('finds a kubelet in /proc: its --seccomp-profile-root, else the default and <--root-dir>/seccomp', () => {
    const proc = (argv: string[]): string => {
      const dir = mkdtempSync(path.join(scratch, 'proc-'));
      mkdirSync(path.join(dir, '42'));
      writeFileSync(path.join(dir, '42', 'cmdline'), `${argv.join('\0')}\0`);
      mkdirSync(path.join(dir, 'self'));
      return dir;
    };
    expect(localKubeletSeccompRoots(proc(['/usr/bin/kubelet', '--root-dir=/srv/kubelet']))).toEqual(['/var/lib/kubelet/seccomp', '/srv/kubelet/seccomp']);
    expect(localKubeletSeccompRoots(proc(['kubelet', '--seccomp-profile-root', '/etc/seccomp']))).toEqual(['/etc/seccomp']);
    expect(localKubeletSeccompRoots(proc(['/usr/bin/kubelet']))).toEqual(['/var/lib/kubelet/seccomp']);
    expect(localKubeletSeccompRoots(proc(['/usr/bin/containerd']))).toEqual([]);
  });

  it('kubernetes.seccompProfile: auto by default; anything else than auto, runtime-default or a relative localhost path is refused', () => {
    expect(resolveKubernetesConfig({ image: 'img' }).seccompProfile).toBe('auto');
    expect(resolveKubernetesConfig({ image: 'img', seccompProfile: 'localhost:dsh-tools/session.json' }).seccompProfile).toBe('localhost:dsh-tools/session.json');
    for (const bad of ['unconfined', 'localhost:', 'localhost:/etc/x.json', 'localhost:../x.json', 'localhost:a/../../x', 3]) {
      expect(() => resolveKubernetesConfig({ image: 'img', seccompProfile: bad })).toThrow(/^invalid kubernetes config: seccompProfile must be auto, runtime-default or localhost:<path/);
    }
  });

  it('docs/kubernetes/session-seccomp.json, the file operators install on nodes, is the profile the server uses', () => {
    const shipped = readFileSync(new URL('../../../../docs/kubernetes/session-seccomp.json', import.meta.url), 'utf8');
    expect(JSON.parse(shipped)).toEqual(JSON.parse(sessionSeccompProfile()));
  });
});
