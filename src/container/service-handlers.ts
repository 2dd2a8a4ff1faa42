import type { ContainerModule, ContainerModuleLoadOptions, ServiceIdentifier } from 'inversify';

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
 * (what `decorate()` uses), per token. Inversify drops a token's handlers when
 * the token is unbound, so a `replace()` loaded after a `decorate()` would
 * silently remove the decorator; the host replays the recorded handlers after
 * every rebind instead, so a decorator wraps whatever provider is bound last.
 * An unloaded plugin's handlers are forgotten: the next rebind no longer
 * replays them.
 */
export class ServiceHandlers {
  private readonly byToken = new Map<ServiceIdentifier, Entry[]>();

  /** `options` whose handler registrations are recorded for `owner`. */
  recording<T extends LoadOptions>(owner: ContainerModule, options: T): T {
    const onActivation: LoadOptions['onActivation'] = (token, handler) => {
      this.record(token, { owner, kind: 'activation', handler: handler as Activation });
      options.onActivation(token, handler);
    };
    const onDeactivation: LoadOptions['onDeactivation'] = (token, handler) => {
      this.record(token, { owner, kind: 'deactivation', handler: handler as Deactivation });
      options.onDeactivation(token, handler);
    };
    return { ...options, onActivation, onDeactivation };
  }

  /** Registers again, through `options`, every handler recorded for `token` (call right after unbinding it). */
  replay(token: ServiceIdentifier, options: LoadOptions): void {
    for (const entry of this.byToken.get(token) ?? []) {
      if (entry.kind === 'activation') options.onActivation(token, entry.handler as Activation);
      else options.onDeactivation(token, entry.handler as Deactivation);
    }
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

  private record(token: ServiceIdentifier, entry: Entry): void {
    const entries = this.byToken.get(token) ?? [];
    entries.push(entry);
    this.byToken.set(token, entries);
  }
}
