import 'reflect-metadata';
import { Container, type ContainerModule, type ServiceIdentifier } from 'inversify';
import { argsSchemaOf, prepareArgsSchemas } from '../core/args-schemas.js';
import { readContributions } from '../core/contribution-collector.js';
import { ToolClass } from '../core/contributions.js';
import { guardedModule } from './guarded-module.js';
import { ServiceHandlers } from './service-handlers.js';
import { HostSession, type CallOptions, type SessionOptions } from './host-session.js';
import { pluginName } from '../core/plugin-module.js';
import { disposeIfDisposable } from './provider-swap.js';
import { assemblePrompt, type AssembledPrompt, type ToolDescriptor } from './prompt-assembler.js';
import { PromptSection } from '../core/prompt-section.js';
import { getToolMeta } from '../core/tool.decorator.js';
import { argumentNames } from '../core/schema-properties.js';
import { lazyModule } from '../core/lazy-module.js';
import { messageOf } from '../core/describe-value.js';
import { errorResult, type CallContext, type ToolInstance, type ToolMeta, type ToolResult } from '../core/tool-contract.js';
import { dependsOn, missingTokens, type PendingTool } from './tool-readiness.js';

export type { PendingTool } from './tool-readiness.js';
import { toolCards, type ToolCards } from './tool-presentation.js';
import { observeCall, observeSession } from '../providers/observability/call-hook.js';
import { logDisposalFailure } from './disposal-log.js';
import { ModelTextFilter } from '../core/model-text-filter.js';
import type { ToolArgs, ToolValue } from '../core/tool-types.js';
// A tool runs as its call, so a provider request it makes carries the call's session.
import { runAsToolCall } from '../core/tool-call-context.js';

interface LoadedModule {
  readonly guarded: ContainerModule;
  readonly tokens: Set<ServiceIdentifier>;
}

interface ActiveTool {
  readonly meta: ToolMeta;
  readonly cls: ToolClass;
  readonly instance: ToolInstance<object>;
  readonly descriptor: ToolDescriptor;
}

/** class-validator and class-transformer: loaded on the first call, not at start-up. */
const argValidation = lazyModule<typeof import('../core/arg-validation.js')>(
  () => require('../core/arg-validation.js'),
  () => import('../core/arg-validation.js'),
);

/**
 * The plugin host: loads ContainerModule plugins into its own container,
 * activates `@Tool` classes once their required tokens are bound, runs every
 * call through one validation + normalization pipeline, and owns sessions.
 * Nothing is process-global: two hosts in one process never see each other.
 */
export class DshHost {
  private readonly container = new Container({ defaultScope: 'Transient' });
  private readonly modules = new Map<ContainerModule, LoadedModule>();
  /** Seams declared single-provider by a plugin (`bindSeam`): a second binding fails the load. */
  private readonly singleProviders = new Set<ServiceIdentifier>();
  private readonly handlers = new ServiceHandlers();
  private readonly active = new Map<string, ActiveTool>();
  private readonly sessions = new Map<string, HostSession>();
  private pendingTools: PendingTool[] = [];
  private disposal?: Promise<void>;

  /**
   * Loads plugins, then activates every tool whose requirements are now met.
   * Activation waits until the whole batch is in, so a `replace()` later in
   * the same call takes effect before any tool is constructed. If any plugin
   * fails, the whole batch is unloaded again.
   */
  async load(...modules: ContainerModule[]): Promise<void> {
    this.assertOpen();
    const batch: ContainerModule[] = [];
    let current: ContainerModule | undefined;
    try {
      for (const module of modules) {
        current = module;
        if (this.modules.has(module)) throw new Error(`plugin "${pluginName(module)}" is already loaded`);
        const tokens = new Set<ServiceIdentifier>();
        const guarded = guardedModule(module, tokens, this.singleProviders, this.handlers);
        await this.container.load(guarded);
        this.modules.set(module, { guarded, tokens });
        batch.push(module);
        // A tool built before this plugin would keep a replaced provider, or miss
        // an optional one that is now bound: rebuild the tools that use its tokens.
        await this.deactivate((tool) => dependsOn(tool.meta, tokens));
      }
      current = undefined;
      await this.refresh();
    } catch (error) {
      for (const module of batch.reverse()) {
        const loaded = this.modules.get(module)!;
        this.modules.delete(module);
        await this.container.unload(this.handlers.forget(loaded.guarded)).catch(() => undefined);
      }
      await this.refresh().catch(() => undefined);
      const where = current ? `failed to load plugin "${pluginName(current)}"` : 'failed to activate tools';
      throw new Error(`${where}: ${messageOf(error)}`);
    }
  }

  /** Unloads plugins; tools that lose a required binding are deactivated and disposed. */
  async unload(...modules: ContainerModule[]): Promise<void> {
    for (const module of modules) {
      const loaded = this.modules.get(module);
      if (!loaded) throw new Error(`plugin "${pluginName(module)}" is not loaded`);
      this.modules.delete(module);
      // Tools go before the providers they use, so their dispose still finds them.
      const lost = this.tokensOnlyBoundBy(loaded);
      await this.deactivate((tool) => tool.meta.requires.some((token) => lost.has(token)) || loaded.tokens.has(tool.cls));
      await this.container.unload(this.handlers.forget(loaded.guarded));
      await this.refresh();
    }
  }

  /**
   * Replaces the binding of a token (tests and composition roots). Call before
   * the first resolve. Like `replace()`, the value is disposed with the host.
   */
  async rebind<T>(token: ServiceIdentifier<T>, value: T): Promise<void> {
    (await this.container.rebind(token)).toConstantValue(value).onDeactivation(disposeIfDisposable);
    this.handlers.replay(token, this.container);
    await this.deactivate((tool) => dependsOn(tool.meta, new Set([token])));
    await this.refresh();
  }

  isBound(token: ServiceIdentifier): boolean {
    return this.container.isBound(token);
  }

  /** Resolves a provider (for composition roots and diagnostics). */
  get<T>(token: ServiceIdentifier<T>): T {
    return this.container.get(token);
  }

  tools(): ToolDescriptor[] {
    return [...this.active.values()].map((tool) => tool.descriptor);
  }

  pending(): PendingTool[] {
    return this.pendingTools.map((tool) => ({ ...tool, missing: [...tool.missing] }));
  }

  prompt(): AssembledPrompt {
    this.assertOpen('prompt()');
    const sections = readContributions(this.container, PromptSection);
    return assemblePrompt(sections, this.tools());
  }

  openSession(options: SessionOptions = {}): HostSession {
    this.assertOpen();
    const id = options.id ?? crypto.randomUUID();
    if (this.sessions.has(id)) throw new Error(`session "${id}" is already open`);
    const session = new HostSession(
      id,
      options,
      (tool, args, ctx) => this.invoke(tool, args, ctx),
      (closed) => void (this.sessions.get(closed.id) === closed && this.sessions.delete(closed.id)),
      (notice) => this.activeFilter()?.filterNotice(notice) ?? notice,
      (what, error) => logDisposalFailure(this.container, id, what, error),
    );
    this.sessions.set(id, observeSession(this.container, session));
    return session;
  }

  /** The UI cards of a call (and of its result, when given) of an active tool, for front ends such as `dsh-tools call --card`. */
  present(name: string, args: unknown, result?: ToolResult): ToolCards {
    return toolCards(this.active.get(name)?.instance, args, result);
  }

  /** A call without a session. Never rejects. The value is typed for the built-in tools. */
  call<N extends string>(tool: N, args: ToolArgs<N>, options: CallOptions = {}): Promise<ToolResult<ToolValue<N>>> {
    return this.invoke<ToolValue<N>>(tool, args, {
      signal: options.signal ?? new AbortController().signal,
      callId: options.callId ?? crypto.randomUUID(),
      onProgress: options.onProgress,
    });
  }

  /** The one invocation pipeline: lookup, validation, run, failure normalization. */
  async invoke<V = unknown>(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult<V>> {
    const filter = this.activeFilter();
    const call = observeCall(this.container, name, rawArgs, filter ? filter.filterProgress(ctx) : ctx, (c) => this.invokeTool<V>(name, rawArgs, c));
    return filter ? filter.filterResult(await call) : call;
  }

  /** Model-visible text of this host (results, progress, notices) passes through this, when one is bound. */
  private activeFilter(): ModelTextFilter | undefined {
    if (!this.container.isBound(ModelTextFilter)) return undefined;
    const filter = this.container.get(ModelTextFilter);
    return filter.active ? filter : undefined;
  }

  private async invokeTool<V>(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult<V>> {
    try {
      const tool = this.active.get(name);
      if (!tool) return this.missingTool(name);
      if (ctx.session?.disposed) return errorResult(`session "${ctx.session.id}" is disposed`);
      const { validateArgs } = await argValidation();
      const args = validateArgs(tool.meta.args, rawArgs, {
        tool: name,
        names: argumentNames(tool.descriptor.inputSchema),
        ...(tool.instance.hiddenArgumentReasons ? { refusals: tool.instance.hiddenArgumentReasons() } : {}),
      });
      if (ctx.signal.aborted) return errorResult('tool call aborted');
      // The tool's declared value type is what BuiltinToolValues records for its name.
      return (await runAsToolCall(ctx, () => tool.instance.run(args, ctx))) as ToolResult<V>;
    } catch (error) {
      return errorResult(messageOf(error));
    }
  }

  /** Disposes every session, every tool and every provider; awaits all of it. */
  dispose(): Promise<void> {
    this.disposal ??= (async () => {
      await Promise.allSettled([...this.sessions.values()].map((session) => session.dispose()));
      await this.deactivate(() => true);
      await this.container.unbindAll();
    })();
    return this.disposal;
  }

  private missingTool(name: string): ToolResult<never> {
    const pending = this.pendingTools.find((tool) => tool.name === name);
    if (!pending) return errorResult(`unknown tool "${name}"`);
    const why = pending.error ?? `missing ${pending.missing.join(', ')}`;
    return errorResult(`tool "${name}" is not ready: ${why}`);
  }

  /** Re-evaluates every discovered tool against the current bindings. */
  private async refresh(): Promise<void> {
    const classes = this.discoveredClasses();
    await prepareArgsSchemas(classes.map((cls) => getToolMeta(cls)!.args));
    await this.deactivate((tool) => !classes.includes(tool.cls) || missingTokens(this.container, tool.meta).length > 0);
    const pending: PendingTool[] = [];
    const failures: string[] = [];
    for (const cls of classes) {
      const meta = getToolMeta(cls)!;
      if ([...this.active.values()].some((tool) => tool.cls === cls)) continue;
      const missing = missingTokens(this.container, meta);
      if (missing.length > 0) {
        pending.push({ name: meta.name, missing });
        continue;
      }
      const clash = this.active.get(meta.name);
      if (clash) {
        failures.push(`two tools are named "${meta.name}" (${clash.cls.name} and ${cls.name}); mount only one`);
        continue;
      }
      try {
        this.activate(cls, meta);
      } catch (error) {
        pending.push({ name: meta.name, missing: [], error: messageOf(error) });
        failures.push(`tool "${meta.name}" failed to start: ${messageOf(error)}`);
      }
    }
    this.pendingTools = pending;
    if (failures.length > 0) throw new Error(failures.join('; '));
  }

  private activate(cls: ToolClass, meta: ToolMeta): void {
    const instance = this.container.get<ToolInstance<object>>(cls);
    const schema = argsSchemaOf(meta.args);
    const descriptor: ToolDescriptor = {
      name: meta.name,
      ...(meta.title !== undefined ? { title: meta.title } : {}),
      description: instance.description?.() ?? meta.description,
      inputSchema: instance.adjustSchema ? instance.adjustSchema(schema) : schema,
      ...(meta.annotations !== undefined ? { annotations: meta.annotations } : {}),
      ...(meta.outputSchema !== undefined ? { outputSchema: meta.outputSchema } : {}),
    };
    this.active.set(meta.name, { meta, cls, instance, descriptor });
  }

  private async deactivate(predicate: (tool: ActiveTool) => boolean): Promise<void> {
    const leaving = [...this.active.values()].filter(predicate);
    for (const tool of leaving) this.active.delete(tool.meta.name);
    await Promise.allSettled(leaving.map(async (tool) => tool.instance.dispose?.()));
  }

  /** Tokens of `loaded` that no other loaded plugin binds (an unload removes them). */
  private tokensOnlyBoundBy(loaded: LoadedModule): Set<ServiceIdentifier> {
    const lost = new Set(loaded.tokens);
    for (const other of this.modules.values()) for (const token of other.tokens) lost.delete(token);
    return lost;
  }

  private discoveredClasses(): ToolClass[] {
    return [...new Set(readContributions(this.container, ToolClass))].filter((cls) => getToolMeta(cls) !== undefined);
  }

  private assertOpen(operation?: string): void {
    if (!this.disposal) return;
    throw new Error(operation ? `cannot call ${operation}: the host is disposed` : 'the host is disposed');
  }
}
