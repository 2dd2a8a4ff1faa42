import { LocalShellExecutor } from '../../src/providers/backends/local/local-shell-executor.js';
import type { ExecRequest, ExecutorConfig, RunOptions, RunResult } from '../../src/providers/exec/shell/shell-executor.js';

export { pollUntil, processesWith, survivors, uniqueSleep } from './process-table.js';

/** Executors made by a test file, disposed after each test. */
export class ExecutorPool {
  private readonly made: LocalShellExecutor[] = [];

  make(config: Partial<ExecutorConfig> = {}): LocalShellExecutor {
    const executor = new LocalShellExecutor(config);
    this.made.push(executor);
    return executor;
  }

  async disposeAll(): Promise<void> {
    const all = this.made.splice(0);
    await Promise.all(all.map((executor) => executor.dispose()));
  }
}

/** resolve + run in one step. */
export function runCommand(
  executor: LocalShellExecutor,
  request: ExecRequest | string,
  options?: RunOptions,
): Promise<RunResult> {
  const spec = executor.checkRequest(typeof request === 'string' ? { command: request } : request);
  return executor.run(spec, options);
}
