import { readFileSync } from 'node:fs';
import { execa } from 'execa';

export interface CapabilityCheck {
  readonly name: string;
  readonly ok: boolean;
  /** Version or what was found; the reason when missing. */
  readonly detail: string;
  /** What stops working when this is missing. */
  readonly disables: string;
}

/**
 * One probe program, killed after 5 s. execa here (not the executor's bare
 * spawn): doctor is off the hot path, and its probes run side by side.
 */
async function run(command: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const result = await execa(command, args, { timeout: 5000, reject: false, stdin: 'ignore', all: true, stripFinalNewline: true });
  if (result.failed && result.exitCode === undefined) return { ok: false, out: result.code ?? result.shortMessage ?? 'did not start' };
  return { ok: result.exitCode === 0, out: (result.all ?? '').trim() };
}

async function checkBash(): Promise<CapabilityCheck> {
  const { ok, out } = await run('bash', ['--version']);
  return {
    name: 'bash',
    ok,
    detail: ok ? out.split('\n')[0]! : `not runnable (${out})`,
    disables: 'every shell tool: one-shot bash, persistent bash, background tasks',
  };
}

async function checkNodePty(): Promise<CapabilityCheck> {
  const disables = 'the persistent shell (--shell persistent)';
  const { loadPty } = await import('../providers/backends/pty/pty-loader.js');
  const load = await loadPty();
  if (!load.ok) return { name: 'node-pty', ok: false, detail: `unavailable: ${load.reason}`, disables };
  try {
    const pty = load.module;
    const exit = await new Promise<number>((resolve, reject) => {
      const term = pty.spawn('/bin/sh', ['-c', 'exit 0'], { cols: 80, rows: 24 });
      const timer = setTimeout(() => {
        term.kill('SIGKILL');
        reject(new Error('a test PTY did not exit within 5 s'));
      }, 5000);
      term.onExit(({ exitCode }) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    return { name: 'node-pty', ok: exit === 0, detail: exit === 0 ? `${load.name} loads and spawns a PTY` : `${load.name}: test PTY exited ${exit}`, disables };
  } catch (error) {
    return { name: 'node-pty', ok: false, detail: `${load.name} loads but cannot spawn a PTY (${(error as Error).message.split('\n')[0]})`, disables };
  }
}

/** `sandbox` is the composition's sandbox config (its `bwrapPath`, `network`), so doctor probes what serve would run. */
async function checkBwrap(sandbox: { readonly bwrapPath?: string; readonly network?: boolean } = {}): Promise<CapabilityCheck> {
  const disables = 'sandboxed execution (read-only and workspace-write modes fail closed)';
  const bwrapPath = sandbox.bwrapPath ?? 'bwrap';
  const version = await run(bwrapPath, ['--version']);
  if (!version.ok) {
    return { name: 'bwrap', ok: false, detail: 'not found (install the bubblewrap package)', disables };
  }
  // The same canary probe the sandboxed composition relies on, so doctor and runtime agree.
  const { BwrapSandboxProvider } = await import('../providers/backends/bwrap/bwrap-sandbox-provider.js');
  const reason = new BwrapSandboxProvider({ bwrapPath, ...(sandbox.network === undefined ? {} : { network: sandbox.network }) }).unavailableReason();
  const found = version.out.split('\n')[0] || bwrapPath;
  return {
    name: 'bwrap',
    ok: reason === null,
    detail: reason === null ? `${found}, confines a test command` : `${found} but cannot confine: ${reason}`,
    disables,
  };
}

async function checkUserNamespaces(): Promise<CapabilityCheck> {
  const disables = 'unprivileged sandboxing (bwrap then needs root or setuid)';
  let max = 'unknown';
  try {
    max = readFileSync('/proc/sys/user/max_user_namespaces', 'utf8').trim();
  } catch {
    // Not Linux, or /proc hidden: the trial below decides.
  }
  const trial = await run('unshare', ['--user', '--map-root-user', 'true']);
  const ok = trial.ok && max !== '0';
  return {
    name: 'user namespaces',
    ok,
    detail: ok ? `available (max_user_namespaces=${max})` : `unavailable (max_user_namespaces=${max}; ${trial.out || 'unshare failed'})`,
    disables,
  };
}

export async function runChecks(sandbox: Parameters<typeof checkBwrap>[0] = {}): Promise<CapabilityCheck[]> {
  return Promise.all([checkBash(), checkNodePty(), checkBwrap(sandbox), checkUserNamespaces()]);
}
