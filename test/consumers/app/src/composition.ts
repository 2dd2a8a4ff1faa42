// The consumer's composition root: the local environment, its own plugin,
// and a wrapper around the executor.
import 'reflect-metadata';
import { createHost, decorate, localEnvironment, ShellExecutor, type DshHost } from 'dsh-tools';
import { AuditingExecutor } from './audit-executor.js';
import { diskUsageModule } from './disk-usage.tool.js';

export interface Backend {
  readonly host: DshHost;
  readonly audit: () => readonly string[];
}

export async function createBackend(workspace: string): Promise<Backend> {
  let auditing: AuditingExecutor | undefined;
  const host = await createHost(
    ...localEnvironment({ workspace, executor: { timeoutMs: 30_000 } }),
    diskUsageModule(),
    decorate(ShellExecutor, (inner) => (auditing = new AuditingExecutor(inner))),
  );
  return { host, audit: () => auditing?.commands ?? [] };
}
