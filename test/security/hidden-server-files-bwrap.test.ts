// Issue 33, item 2 (the server's files): a confined command read the server's --token-file (kept under
// /run/secrets/, as --help suggests) and used it to approve its own escalation. The server's own files —
// token files, the config file, the audit log — are masked from every confined command, wherever they are.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, type DshHost } from '../../src/index.js';
import { forgetServerFile, hideServerFile } from '../../src/core/server-files.js';
import { sandboxedEnvironment } from '../../src/plugins/sandboxed.environment.js';
import { tempWorkspace } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const SECRET = 'dsh-secret-4f1c9a';

describeWithBwrap(`the server's own files are hidden from confined commands${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let secrets: string;
  let host: DshHost | undefined;
  const hidden: string[] = [];
  beforeEach(() => {
    ws = tempWorkspace('dsh-hidden-');
    secrets = mkdtempSync(path.join(existsRun() ? '/run' : '/var/tmp', 'dsh-secrets-'));
  });
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    for (const file of hidden.splice(0)) forgetServerFile(file);
    rmSync(secrets, { recursive: true, force: true });
    ws.remove();
  });

  function hide(file: string, content = SECRET): string {
    writeFileSync(file, `${content}\n`);
    hideServerFile(file);
    hidden.push(file);
    return file;
  }

  describe.each([
    ['read-only', 'oneshot'],
    ['workspace-write', 'oneshot'],
    ['workspace-write', 'persistent'],
  ] as const)('%s, %s shell', (mode, shell) => {
    async function run(command: string): Promise<string> {
      host ??= await createHost(...sandboxedEnvironment({ workspace: ws.dir, shell, sandbox: { mode } }));
      return text(await host.openSession({ cwd: ws.dir }).call('bash', { command, description: 'Read the server files' }));
    }

    it('a token file under /run/secrets-like paths, the audit log and a config in the workspace read as empty or refused', async () => {
      const token = hide(path.join(secrets, 'token'));
      const audit = hide(path.join(secrets, 'audit.jsonl'), '{"tool":"bash"}');
      const config = hide(path.join(ws.dir, 'dsh.yaml'), `redact:\n  values: [${SECRET}]`);
      const output = await run(`cat ${token} ${audit} ${config}; echo "exit $?"`);
      expect(output).not.toContain(SECRET);
      expect(output).not.toContain('"tool"');
      expect(readFileSync(token, 'utf8')).toBe(`${SECRET}\n`);
    });

    it('a token directory and a Kubernetes-style secret (..data links) are hidden, under every name', async () => {
      const dir = path.join(secrets, 'tokens');
      mkdirSync(dir);
      hide(path.join(dir, 'alice'));
      hideServerFile(dir);
      hidden.push(dir);
      const k8s = path.join(secrets, 'k8s');
      mkdirSync(path.join(k8s, '..2026_12_05'), { recursive: true });
      writeFileSync(path.join(k8s, '..2026_12_05', 'token'), `${SECRET}\n`);
      symlinkSync('..2026_12_05', path.join(k8s, '..data'));
      symlinkSync('..data/token', path.join(k8s, 'token'));
      hideServerFile(path.join(k8s, 'token'));
      hidden.push(path.join(k8s, 'token'));
      const output = await run(`cat ${dir}/alice ${k8s}/token ${k8s}/..data/token ${k8s}/..2026_12_05/token; ls -a ${k8s}; echo "exit $?"`);
      expect(output).not.toContain(SECRET);
      expect(output).not.toContain('..2026_12_05');
    });
  });

  it('the CLI hides its --config file from a command in the workspace', async () => {
    await ensureBuilt();
    const config = path.join(ws.dir, 'dsh.yaml');
    writeFileSync(config, `sandbox:\n  mode: workspace-write\nredact:\n  values: [${SECRET}]\n`);
    const args = JSON.stringify({ command: `cat ${config} | tr a-z A-Z; echo "exit $?"`, description: 'Read the config' });
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [MAIN_JS, '--config', config, '--workspace', ws.dir, 'call', 'bash', args], { cwd: ws.dir, timeout: 60_000 }, (error, out, err) =>
        error && !out ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      ),
    );
    expect(stdout).toMatch(/exit 0/);
    expect(stdout).not.toContain(SECRET.toUpperCase());
    expect(stdout).not.toContain('REDACT');
  });
});

function existsRun(): boolean {
  try {
    mkdirSync('/run', { recursive: true });
    return os.userInfo().uid === 0;
  } catch {
    return false;
  }
}
