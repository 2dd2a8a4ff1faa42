// `dsh-tools --kubernetes <image>` as a user runs it: the built binary, the cluster of $KUBECONFIG.
import { execFile } from 'node:child_process';
import { realpathSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';

function dsh(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN_JS, ...args], { timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('dsh-tools --kubernetes', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('refuses --kubernetes together with --container before touching any engine', async () => {
    const run = await dsh(['--kubernetes', 'a:1', '--container', 'b:1', 'prompt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('dsh-tools: --container and --kubernetes (or the container: and kubernetes: sections) exclude each other: choose one\n');
  });
});

describeWithCluster(`dsh-tools --kubernetes on the cluster${NEEDS_CLUSTER}`, () => {
  it('with --sandbox read-only mounts the workspace read-only in the pod', async () => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-k8s-cli-')));
    try {
      const args = { command: 'pwd; touch x', description: 'Try to write' };
      const run = await dsh(['--kubernetes', KIT_IMAGE, '--sandbox', 'read-only', '--workspace', dir, 'call', 'bash', JSON.stringify(args)]);
      expect(run.stdout).toMatch(new RegExp(`^${dir}\n\\[stderr\\]\ntouch: cannot touch 'x': Read-only file system\n\\[exit code: 1\\]`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
