import type { Container, ContainerModule, ServiceIdentifier } from 'inversify';
import { pluginName } from '../core/plugin-module.js';
import { tokenName } from '../core/token-name.js';
import { replayBindingsOf } from './binding-replay.js';
import { BindingGraph } from './binding-graph.js';
import { guardedModule } from './guarded-module.js';
import { ServiceHandlers } from './service-handlers.js';
import { rebuildSingletonDependents, type RebuildSite } from './singleton-rebuild.js';

interface LoadedModule {
  guarded: ContainerModule;
  readonly tokens: Set<ServiceIdentifier>;
  /** Tokens this plugin rebound (`replace()`, `host.rebind`). */
  readonly replaced: Set<ServiceIdentifier>;
  /** Bindings of this plugin brought back after a replacement of them was unloaded; they go with it. */
  readonly restorations: ContainerModule[];
}

/**
 * The plugins loaded into one container, in load order, with what each bound.
 * Unloading a plugin that replaced a provider restores the binding the
 * latest remaining plugin made of that token (docs/embedding.md, "Swaps").
 */
export class LoadedPlugins {
  private readonly modules = new Map<ContainerModule, LoadedModule>();
  private readonly singleProviders = new Set<ServiceIdentifier>();
  /** Tokens resolved since they were last (re)bound. */
  private readonly activated = new Set<ServiceIdentifier>();
  readonly handlers: ServiceHandlers;
  /** What every bound provider injects: the host rebuilds a tool when anything it reaches changes. */
  readonly graph = new BindingGraph();
  /** Each guarded module (a plugin's, or a restoration's) → the plugin whose recipe it runs. */
  private readonly sources = new Map<object, { readonly module: ContainerModule; readonly loaded: LoadedModule }>();
  /** The values built for singleton tokens, until a rebuild disposes them. */
  private readonly built = new Map<ServiceIdentifier, Set<unknown>>();
  private readonly rebuildSite: RebuildSite;

  constructor(private readonly container: Container) {
    this.handlers = new ServiceHandlers(container);
    this.rebuildSite = {
      container,
      graph: this.graph,
      handlers: this.handlers,
      activated: this.activated,
      takeBuilt: (token) => {
        const values = [...(this.built.get(token) ?? [])];
        this.built.delete(token);
        return values;
      },
      replay: async (owner, token) => {
        const source = this.sources.get(owner);
        if (source) await this.loadRestoration(source.module, source.loaded, token);
      },
    };
  }

  has(module: ContainerModule): boolean {
    return this.modules.has(module);
  }

  /** Loads `module`; returns the tokens it bound. A `decorate()` of a token already in use is refused (nothing stays loaded). */
  async add(module: ContainerModule, inUse: (token: ServiceIdentifier) => boolean): Promise<Set<ServiceIdentifier>> {
    if (this.modules.has(module)) throw new Error(`plugin "${pluginName(module)}" is already loaded`);
    const loaded: LoadedModule = { guarded: undefined as never, tokens: new Set(), replaced: new Set(), restorations: [] };
    const guarded = this.guard(module, loaded.tokens, loaded.replaced);
    this.sources.set(guarded, { module, loaded });
    try {
      await this.container.load(guarded);
    } catch (error) {
      this.graph.forget(guarded);
      this.sources.delete(guarded);
      await this.container.unload(this.handlers.forget(guarded)).catch(() => undefined);
      throw error;
    }
    loaded.guarded = guarded;
    // A rebound token's old instances went with its old binding.
    for (const token of loaded.replaced) this.built.delete(token);
    this.modules.set(module, loaded);
    const late = this.handlers.activationTokensOf(guarded).filter((token) => !loaded.tokens.has(token) && (this.activated.has(token) || inUse(token)));
    if (late.length > 0) {
      await this.remove(module);
      const names = late.map(tokenName).join(', ');
      throw new Error(
        `it decorates ${names}, which is already built and in use (a decorator wraps a provider when it is built); ` +
          `load decorate() with the composition (createHost(…, decorate(…))), or swap the provider with replace(token, …), which a decorator loaded before it wraps`,
      );
    }
    await rebuildSingletonDependents(this.rebuildSite, loaded.tokens);
    return loaded.tokens;
  }

  /** Unloads `module`; returns the tokens that changed (no longer bound, or bound to a restored provider). */
  async remove(module: ContainerModule): Promise<Set<ServiceIdentifier>> {
    const loaded = this.modules.get(module);
    if (!loaded) throw new Error(`plugin "${pluginName(module)}" is not loaded`);
    this.modules.delete(module);
    for (const restoration of loaded.restorations) {
      this.graph.forget(restoration);
      this.sources.delete(restoration);
      await this.container.unload(this.handlers.forget(restoration));
    }
    this.graph.forget(loaded.guarded);
    this.sources.delete(loaded.guarded);
    await this.container.unload(this.handlers.forget(loaded.guarded));
    for (const token of loaded.tokens) {
      this.activated.delete(token);
      this.built.delete(token);
    }
    for (const token of loaded.replaced) if (!this.container.isBound(token)) await this.restore(token);
    await rebuildSingletonDependents(this.rebuildSite, loaded.tokens);
    return new Set(loaded.tokens);
  }

  /** Tokens `loaded` binds that no other plugin binds (an unload of it removes them). */
  tokensOnlyBoundBy(module: ContainerModule): Set<ServiceIdentifier> {
    const lost = new Set(this.modules.get(module)?.tokens ?? []);
    for (const [other, loaded] of this.modules) if (other !== module) for (const token of loaded.tokens) lost.delete(token);
    return lost;
  }

  /** Names of the loaded plugins that bind `token`. */
  ownersOf(token: ServiceIdentifier): string[] {
    return [...this.modules].filter(([, loaded]) => loaded.tokens.has(token)).map(([module]) => pluginName(module));
  }

  private guard(module: ContainerModule, tokens: Set<ServiceIdentifier>, replaced: Set<ServiceIdentifier>): ContainerModule {
    return guardedModule(module, {
      boundHere: tokens,
      replacedHere: replaced,
      singleTokens: this.singleProviders,
      handlers: this.handlers,
      activated: this.activated,
      ownersOf: (token) => this.ownersOf(token),
      graph: this.graph,
      onBuilt: (token, value) => {
        if (this.graph.isSingleton(token)) this.built.set(token, (this.built.get(token) ?? new Set()).add(value));
      },
    });
  }

  /** Binds `token` again as the latest remaining plugin that binds it did (its other bindings untouched). */
  private async restore(token: ServiceIdentifier): Promise<void> {
    const owners = [...this.modules].filter(([, loaded]) => loaded.tokens.has(token));
    const latest = owners[owners.length - 1];
    if (!latest) return;
    await this.loadRestoration(latest[0], latest[1], token);
  }

  /** Loads what `module` binds under `token` again; it goes when `module` is unloaded. */
  private async loadRestoration(module: ContainerModule, loaded: LoadedModule, token: ServiceIdentifier): Promise<void> {
    const restoration = this.guard(replayBindingsOf(module, token), new Set(), new Set());
    this.sources.set(restoration, { module, loaded });
    await this.container.load(restoration);
    loaded.restorations.push(restoration);
  }
}
