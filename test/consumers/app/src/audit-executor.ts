// A provider wrapper: every command the tools run is recorded, then handed to
// the executor the composition bound (the default LocalShellExecutor).
// Mounted with decorate(ShellExecutor, …): the host disposes the wrapper and
// then the wrapped executor, so nothing outlives host.dispose().
// Written against the 0.1 name on purpose: it implements resolve(), which
// 0.2 renamed checkRequest() and still accepts for one deprecation cycle.
import { checkRequestWith, type BackgroundProcess, type ExecRequest, type ExecSpec, type RunOptions, type RunResult, type ShellExecutor } from 'dsh-tools';

export class AuditingExecutor implements ShellExecutor {
  readonly commands: string[] = [];

  constructor(private readonly inner: ShellExecutor) {}

  resolve(request: ExecRequest): ExecSpec {
    return checkRequestWith(this.inner, request);
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
