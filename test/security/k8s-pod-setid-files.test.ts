// Issue 33 item 1 for pods: a session pod runs as root unless `kubernetes.user` is set, and what it creates
// in a hostPath workspace is root's on the node. The runtime's default seccomp profile ignores modes, so a
// `chmod 4755` left a setuid-root file for any user of the node. The pod now gets the session profile
// (refusing set-id modes; no MKNOD capability): every everyday route is tried from the one-shot and the
// persistent shell, and the host stats what was left behind.
import { lstatSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, kubernetesEnvironment, type DshHost } from '../../src/index.js';
import { sessionProfileName } from '../../src/providers/backends/kubernetes/pod-seccomp.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { sessionPods, text, workspace } from '../support/kube-kit.js';

/** What the host sees at `file`: absent, or its type and set-id bits. */
function leftOnHost(file: string): string {
  try {
    const info = lstatSync(file);
    if (info.isCharacterDevice() || info.isBlockDevice()) return 'device';
    return (info.mode & 0o6000) !== 0 ? `set-id ${(info.mode & 0o7777).toString(8)}` : 'plain';
  } catch {
    return 'absent';
  }
}

/** Each attempt prints `<name>=<exit status>`; the files are named after the attempt. */
const ATTEMPTS = [
  'cp /bin/true suid && chmod 4755 suid; echo "chmod-4755=$?"',
  'cp /bin/true sgid && chmod 2755 sgid; echo "chmod-2755=$?"',
  'chmod u+s script.sh; echo "u+s=$?"',
  'install -m 4755 /bin/true inst; echo "install=$?"',
  `perl -e 'sysopen(F, "made", 65, 04755) ? print "sysopen=0\\n" : print "sysopen=", $! + 0, "\\n"'`,
  `perl -e 'my $p = "script.sh"; syscall(452, -100, $p, 06755, 0) == 0 ? print "fchmodat2=0\\n" : print "fchmodat2=", $! + 0, "\\n"'`,
  'mknod null c 1 3; echo "mknod-c=$?"',
  'mknod disk b 8 0; echo "mknod-b=$?"',
  'cp /bin/true plain && chmod 1755 plain; echo "sticky=$?"',
];
const FILES = ['suid', 'sgid', 'script.sh', 'inst', 'made', 'null', 'disk'];

describeWithCluster(`kubernetes: no set-id or device file from a root pod reaches the node${NEEDS_CLUSTER}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = workspace('setid');
    // No `user`: the pod runs as the image's user, root, as by default.
    host = await createHost(...kubernetesEnvironment({ workspace: root, shell: 'both', kubernetes: { image: KIT_IMAGE } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  describe.each([['one-shot', 'bash'], ['persistent', 'bash_persistent']] as const)('%s shell', (shell, tool) => {
    it('chmod 4755/2755/u+s, install -m 4755, sysopen 04755, fchmodat2 06755 and mknod c/b are refused; the node sees no set-id or device file', async () => {
      const dir = path.join(root, shell);
      const session = host.openSession({ id: `k8s-setid-${shell}`, cwd: root });
      try {
        const made = text(await session.call(tool, { command: `mkdir -p ${shell} && id -u`, ...(tool === 'bash' ? { description: 'Who am I' } : {}) }));
        // The attack's precondition: the pod runs as root.
        expect(made).toBe('0');
        writeFileSync(path.join(dir, 'script.sh'), '#!/bin/sh\nid -u\n', { mode: 0o755 });
        const command = `cd ${shell} && { ${ATTEMPTS.join('; ')}; } 2>/dev/null`;
        const out = text(await session.call(tool, { command, ...(tool === 'bash' ? { description: 'Try set-id files' } : {}) }));
        expect(out.trim().split('\n')).toEqual(['chmod-4755=1', 'chmod-2755=1', 'u+s=1', 'install=1', 'sysopen=1', 'fchmodat2=1', 'mknod-c=1', 'mknod-b=1', 'sticky=0']);
        for (const file of FILES) expect(`${file}: ${leftOnHost(path.join(dir, file))}`).toMatch(/: (plain|absent)$/);
        expect((lstatSync(path.join(dir, 'plain')).mode & 0o7777).toString(8)).toBe('1755');
        const [pod] = await sessionPods(`k8s-setid-${shell}`);
        expect(pod!.spec!.securityContext!.seccompProfile).toEqual({ type: 'Localhost', localhostProfile: sessionProfileName() });
      } finally {
        await session.dispose();
      }
    }, 120_000);
  });
});
