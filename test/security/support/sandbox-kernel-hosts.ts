import { spawnSync } from 'node:child_process';
import { createHost, type DshHost, type HostSession } from '../../../src/index.js';
import { sandboxedEnvironment, type SandboxedEnvironmentOptions } from '../../../src/plugins/sandboxed.environment.js';
import { tempWorkspace } from '../../support/sandbox-test-kit.js';

export const SHELLS = ['oneshot', 'persistent'] as const;
export const MODES = ['read-only', 'workspace-write'] as const;
export type Shell = (typeof SHELLS)[number];
export type Mode = (typeof MODES)[number];

/** Sandboxed hosts on fresh workspaces, all disposed (and the workspaces removed) by `disposeAll`. */
export class KernelHosts {
  private readonly hosts: DshHost[] = [];
  private readonly workspaces: ReturnType<typeof tempWorkspace>[] = [];

  /** A session of a fresh sandboxed host in `mode` with `shell`. */
  async session(shell: Shell, mode: Mode = 'read-only', options: Partial<SandboxedEnvironmentOptions> = {}): Promise<{ session: HostSession; workspace: string; host: DshHost }> {
    const ws = tempWorkspace('dsh-kernel-');
    this.workspaces.push(ws);
    const host = await createHost(
      ...sandboxedEnvironment({ workspace: ws.dir, shell, executor: { graceMs: 200 }, ...options, sandbox: { mode, ...options.sandbox } }),
    );
    this.hosts.push(host);
    return { session: host.openSession({ cwd: ws.dir }), workspace: ws.dir, host };
  }

  async disposeAll(): Promise<void> {
    await Promise.all(this.hosts.splice(0).map((host) => host.dispose()));
    for (const ws of this.workspaces.splice(0)) ws.remove();
  }
}

/** The model-visible text of a `bash` call. */
export async function bash(session: HostSession, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const result = (await session.call('bash', { command, description: 'Probe the kernel surface', ...extra })) as { content: { text: string }[] };
  return result.content.map((block) => block.text).join('');
}

/** A command's stdout on the host (unconfined), trimmed. */
export function onHost(command: string): string {
  return spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' }).stdout.trim();
}
