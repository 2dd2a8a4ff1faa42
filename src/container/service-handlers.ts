import type { Container, ContainerModule, ContainerModuleLoadOptions, ServiceIdentifier } from 'inversify';

type LoadOptions = Pick<ContainerModuleLoadOptions, 'onActivation' | 'onDeactivation'>;
type Activation = Parameters<ContainerModuleLoadOptions['onActivation']>[1];
type Deactivation = Parameters<ContainerModuleLoadOptions['onDeactivation']>[1];

interface Entry {
  readonly owner: ContainerModule;
  readonly kind: 'activation' | 'deactivation';
  readonly handler: Activation | Deactivation;
}

/**
 * The service-level activation and deactivation handlers plugins registered
 * (what `decorate()` uses), per token, kept by the host rather than by
 * Inversify: Inversify drops a token's handlers when the token is unbound (a
 * `replace()`), and drops a module's with the module. Instead one dispatcher
 * per token, registered on the container itself, runs the handlers recorded
 * now, in registration order; a rebind reinstalls it (`reinstall`). So a
 * decorator wraps whatever provider is bound, whichever plugin bound it and in
 * whatever order they were loaded, and an unloaded plugin's handlers stop
 * running at once (`forget`).
 */
export class ServiceHandlers {
  private readonly byToken = new Map<ServiceIdentifier, Entry[]>();
  private readonly installed = new Set<ServiceIdentifier>();

  constructor(private readonly container?: Container) {}

  /** `options` whose handler registrations are recorded for `owner` (and run by the dispatcher). */
  recording<T extends LoadOptions>(owner: ContainerModule, options: T): T {
    const onActivation: LoadOptions['onActivation'] = (token, handler) => this.record(token, { owner, kind: 'activation', handler: handler as Activation }, options);
    const onDeactivation: LoadOptions['onDeactivation'] = (token, handler) => this.record(token, { owner, kind: 'deactivation', handler: handler as Deactivation }, options);
    return { ...options, onActivation, onDeactivation };
  }

  /** After `token` was unbound (which dropped its dispatcher): registers the dispatcher again. */
  reinstall(token: ServiceIdentifier, options?: LoadOptions): void {
    this.installed.delete(token);
    if (this.byToken.has(token)) this.install(token, options);
  }

  /** The tokens `owner` registered an activation handler for (what a `decorate()` wraps). */
  activationTokensOf(owner: ContainerModule): ServiceIdentifier[] {
    return [...this.byToken].filter(([, entries]) => entries.some((entry) => entry.owner === owner && entry.kind === 'activation')).map(([token]) => token);
  }

  /** Forgets what `owner` registered (its plugin is being unloaded); returns `owner`. */
  forget(owner: ContainerModule): ContainerModule {
    for (const [token, entries] of this.byToken) {
      const kept = entries.filter((entry) => entry.owner !== owner);
      if (kept.length === 0) this.byToken.delete(token);
      else this.byToken.set(token, kept);
    }
    return owner;
  }

  private record(token: ServiceIdentifier, entry: Entry, options: LoadOptions): void {
    this.byToken.set(token, [...(this.byToken.get(token) ?? []), entry]);
    this.install(token, options);
  }

  /** One dispatcher per token; on the container (outlives every module), else through `options` (a host-less guard). */
  private install(token: ServiceIdentifier, options?: LoadOptions): void {
    if (this.installed.has(token)) return;
    const target = this.container ?? options;
    if (!target) return;
    this.installed.add(token);
    target.onActivation(token, (context, value) => {
      let current = value;
      for (const entry of this.byToken.get(token) ?? []) {
        if (entry.kind !== 'activation') continue;
        const handler = entry.handler as (context: unknown, value: unknown) => unknown;
        // An async activation's promise is chained, never handed on as the value.
        current = (current instanceof Promise ? current.then((settled) => handler(context, settled)) : handler(context, current)) as typeof value;
      }
      return current;
    });
    // Registered twice on purpose: Inversify 7.11 does not await the promise of
    // the first service-level deactivation handler that returns one; both
    // return the same promise, so the teardown waits for it.
    const runs = new WeakMap<object, Promise<void>>();
    const deactivate = (value: unknown): Promise<void> | undefined => {
      const key = typeof value === 'object' && value !== null ? value : undefined;
      const earlier = key ? runs.get(key) : undefined;
      if (earlier) return earlier;
      const handlers = (this.byToken.get(token) ?? []).filter((entry) => entry.kind === 'deactivation');
      if (handlers.length === 0) return undefined;
      const run = (async () => {
        for (const entry of handlers) await (entry.handler as (value: unknown) => unknown)(value);
      })();
      if (key) runs.set(key, run);
      return run;
    };
    target.onDeactivation(token, deactivate);
    target.onDeactivation(token, deactivate);
  }
}
