// Issue 33 item 3 and issue 34 item 3 in session pods: a writable hostPath workspace keeps its protected
// paths read-only (read-only hostPath mounts over them), and since a hostPath takes no mount flags, the
// pod's securityContext (no privilege escalation, every capability dropped but the defaults, RuntimeDefault
// seccomp) is what keeps a setuid-root binary placed from the host side from giving euid 0.
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, kubernetesEnvironment, type DshHost } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { text, workspace } from '../support/kube-kit.js';

const CONFIG = '[core]\n\trepositoryformatversion = 0\n';

describeWithCluster(`kubernetes: protected paths and the pod's answer to set-id files${NEEDS_CLUSTER}`, () => {
  let root: string;
  let host: DshHost | undefined;
  beforeEach(() => {
    root = workspace('protect');
    chmodSync(root, 0o755);
    mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'config'), CONFIG);
    writeFileSync(path.join(root, '.envrc'), 'export A=1\n');
  });
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it('.git and .envrc stay read-only in a writable workspace, whatever the route', async () => {
    host = await createHost(...kubernetesEnvironment({ workspace: root, sandbox: { mode: 'workspace-write' }, kubernetes: { image: KIT_IMAGE } }));
    const run = async (command: string) => text(await host!.call('bash', { command: `${command}; echo "exit $?"`, description: 'Try the protected paths' }));
    for (const command of [
      'printf "[core]\\n\\tfsmonitor = id\\n" >> .git/config',
      'echo id > .git/hooks/pre-commit',
      'mv .git .g && mkdir .git && echo evil > .git/config',
      'rm -rf .git && ln -s /tmp .git',
      'echo evil >> .envrc',
      'mkdir -p sub && cd sub && echo evil >> ../.git/config',
    ]) {
      expect(await run(command)).toMatch(/exit [1-9]/);
    }
    expect(await run('echo ok > plain && cat plain')).toMatch(/^ok\nexit 0/);
    expect(readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(CONFIG);
    expect(readFileSync(path.join(root, '.envrc'), 'utf8')).toBe('export A=1\n');
  }, 120_000);

  it('a setuid-root binary placed from the host gives a non-root user no euid 0 (NoNewPrivs)', async () => {
    const suid = path.join(root, 'suid-id');
    copyFileSync('/usr/bin/id', suid);
    chownSync(suid, 0, 0);
    chmodSync(suid, 0o4755);
    host = await createHost(...kubernetesEnvironment({ workspace: root, sandbox: { mode: 'workspace-write' }, kubernetes: { image: KIT_IMAGE, user: '1000:1000' } }));
    const output = text(await host.call('bash', { command: `${suid} -u; grep -E '^(NoNewPrivs|CapEff)' /proc/self/status`, description: 'Run the setuid binary' }));
    // /proc/self/status lists CapEff before NoNewPrivs.
    expect(output.split('\n')).toEqual(['1000', expect.stringMatching(/^CapEff:\s+0+$/), expect.stringMatching(/^NoNewPrivs:\s+1$/)]);
  }, 120_000);
});
