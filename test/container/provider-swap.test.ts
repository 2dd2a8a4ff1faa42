// A provider swapped in keeps the lifecycle of the one it replaced: whatever
// the host built or was handed is disposed with the host, so a wrapping
// executor leaves no spill file or process behind.
import { existsSync } from 'node:fs';
import { injectable, preDestroy } from 'inversify';
import { createHost, decorate, localEnvironment, replace, shellModule, ShellExecutor, type DshHost } from '../../src/index.js';
import type { BackgroundProcess, ExecRequest, ExecSpec, RunOptions, RunResult } from '../../src/index.js';
import { survivors, uniqueSleep, waitUntilRunning } from '../support/process-table.js';

/** A typical user wrapper: counts runs, delegates everything, disposes what it wraps. */
class CountingExecutor implements ShellExecutor {
  runs = 0;
  /** How many times the wrapper really shut down (dispose() may be called more than once). */
  disposed = 0;
  private disposal?: Promise<void>;
  constructor(private readonly inner: ShellExecutor) {}
  checkRequest(request: ExecRequest): ExecSpec {
    return this.inner.checkRequest(request);
  }
  run(spec: ExecSpec, options?: RunOptions): Promise<RunResult> {
    this.runs += 1;
    return this.inner.run(spec, options);
  }
  start(spec: ExecSpec): Promise<BackgroundProcess> {
    return this.inner.start(spec);
  }
  dispose(): Promise<void> {
    this.disposal ??= (async () => {
      this.disposed += 1;
      await this.inner.dispose?.();
    })();
    return this.disposal;
  }
}

/** A default executor from a host of its own, for wrappers handed in as values; that host is disposed after each test. */
const donors: DshHost[] = [];
async function defaultExecutor(): Promise<ShellExecutor> {
  const donor = await createHost(...environment());
  donors.push(donor);
  return donor.get(ShellExecutor);
}
afterEach(async () => {
  await Promise.all(donors.splice(0).map((donor) => donor.dispose()));
});

const environment = () => localEnvironment({ workspace: '/tmp', executor: { maxOutputBytes: 100 } });
const bigOutput = { command: 'seq 1 5000', description: 'Print many lines' };

/** Runs a truncated command (a spill file) and a long one (a process), then disposes the host. */
async function leftoversAfterDispose(host: DshHost): Promise<{ spill: string; processes: number[] }> {
  const session = host.openSession({ cwd: '/tmp' });
  const truncated = await session.call('bash', bigOutput);
  const spill = /full output: (\S+)\]/.exec(truncated.content[0]!.text)?.[1];
  expect(spill).toBeDefined();
  expect(existsSync(spill!)).toBe(true);
  const sleep = uniqueSleep();
  const running = session.call('bash', { command: `sleep ${sleep}`, description: 'Wait' });
  expect(await waitUntilRunning(sleep)).not.toHaveLength(0);
  await host.dispose();
  await running;
  return { spill: spill!, processes: await survivors(sleep) };
}

describe('swapping a provider keeps its lifecycle', () => {
  it('decorate(): the wrapped default executor is disposed with the host', async () => {
    let wrapper: CountingExecutor | undefined;
    const host = await createHost(...environment(), decorate(ShellExecutor, (inner) => (wrapper = new CountingExecutor(inner))));
    const left = await leftoversAfterDispose(host);
    expect(wrapper!.runs).toBe(2);
    expect(wrapper!.disposed).toBe(1);
    expect(existsSync(left.spill)).toBe(false);
    expect(left.processes).toEqual([]);
  });

  it('decorate(): a wrapper without dispose() still gets its inner executor disposed', async () => {
    const host = await createHost(
      ...environment(),
      decorate(ShellExecutor, (inner) => ({ checkRequest: (r) => inner.checkRequest(r), run: (s, o) => inner.run(s, o), start: (s) => inner.start(s) })),
    );
    const left = await leftoversAfterDispose(host);
    expect(existsSync(left.spill)).toBe(false);
    expect(left.processes).toEqual([]);
  });

  it('replace(token, value): a swapped-in value with dispose() is disposed with the host', async () => {
    const inner = await defaultExecutor();
    const wrapper = new CountingExecutor(inner);
    const host = await createHost(...environment(), replace(ShellExecutor, wrapper));
    const left = await leftoversAfterDispose(host);
    expect(wrapper.disposed).toBe(1);
    expect(existsSync(left.spill)).toBe(false);
    expect(left.processes).toEqual([]);
  });

  it('replace(token, { useClass }): the container builds the class and runs its @preDestroy', async () => {
    const built: ClassWrapped[] = [];
    @injectable()
    class ClassWrapped implements ShellExecutor {
      disposed = 0;
      constructor() {
        built.push(this);
      }
      checkRequest(request: ExecRequest): ExecSpec {
        return { ...request, workdir: request.workdir ?? '/tmp', timeoutMs: 1000 } as ExecSpec;
      }
      run(): Promise<RunResult> {
        return Promise.reject(new Error('not used'));
      }
      start(): Promise<BackgroundProcess> {
        return Promise.reject(new Error('not used'));
      }
      @preDestroy()
      async dispose(): Promise<void> {
        this.disposed += 1;
      }
    }
    const host = await createHost(...environment(), replace(ShellExecutor, { useClass: ClassWrapped }));
    expect(host.get(ShellExecutor)).toBe(built[0]);
    await host.dispose();
    expect(built).toHaveLength(1);
    expect(built[0]!.disposed).toBe(1);
  });

  it('replace(token, { useFactory }): the factory result is disposed with the host', async () => {
    const inner = await defaultExecutor();
    let made: CountingExecutor | undefined;
    const host = await createHost(...environment(), replace(ShellExecutor, { useFactory: () => (made = new CountingExecutor(inner)) }));
    const left = await leftoversAfterDispose(host);
    expect(made!.disposed).toBe(1);
    expect(existsSync(left.spill)).toBe(false);
    expect(left.processes).toEqual([]);
  });

  it('a second provider for a single-provider seam fails and names replace() as the way to swap it', async () => {
    await expect(createHost(...environment(), shellModule())).rejects.toThrow(
      'plugin "shell:local" binds a second provider for ShellExecutor, which takes exactly one; unload plugin "shell:local" first, or swap it with replace(token, …) or decorate(token, …)',
    );
  });

  it('host.rebind(token, value): the value is disposed with the host too', async () => {
    const wrapper = new CountingExecutor(await defaultExecutor());
    const host = await createHost(...environment());
    await host.rebind(ShellExecutor, wrapper);
    const left = await leftoversAfterDispose(host);
    expect(wrapper.disposed).toBe(1);
    expect(existsSync(left.spill)).toBe(false);
    expect(left.processes).toEqual([]);
  });
});
