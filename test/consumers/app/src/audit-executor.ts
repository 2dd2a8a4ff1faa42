// A provider wrapper: every command the tools run is recorded, then handed to
// the executor the composition bound (the default LocalShellExecutor).
// Mounted with decorate(ShellExecutor, …): the host disposes the wrapper and
// then the wrapped executor, so nothing outlives host.dispose().
import { type BackgroundProcess, type ExecRequest, type ExecSpec, type RunOptions, type RunResult, type ShellExecutor } from 'dsh-tools';

export class AuditingExecutor implements ShellExecutor {
  readonly commands: string[] = [];

  constructor(private readonly inner: ShellExecutor) {}

  checkRequest(request: ExecRequest): ExecSpec {
    return this.inner.checkRequest(request);
  }

  run(spec: ExecSpec, options?: RunOptions): Promise<RunResult> {
    this.commands.push(spec.command);
    return this.inner.run(spec, options);
  }

  start(spec: ExecSpec): Promise<BackgroundProcess> {
    this.commands.push(spec.command);
    return this.inner.start(spec);
  }

  async dispose(): Promise<void> {
    await this.inner.dispose?.();
  }
}
