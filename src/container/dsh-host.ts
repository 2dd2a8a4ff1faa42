import 'reflect-metadata';
import { Container, type ContainerModule, type ServiceIdentifier } from 'inversify';
import { readContributions } from '../core/contribution-collector.js';
import { HostSession, type CallOptions, type SessionOptions } from './host-session.js';
import { pluginName, type PluginModule } from '../core/plugin-module.js';
import { replace } from './provider-swap.js';
import { assemblePrompt, type AssembledPrompt, type ToolDescriptor } from './prompt-assembler.js';
import { PromptSection } from '../core/prompt-section.js';
import { argumentNames } from '../core/schema-properties.js';
import { lazyModule } from '../core/lazy-module.js';
import { messageOf } from '../core/describe-value.js';
import { tokenName } from '../core/token-name.js';
import { errorResult, type CallContext, type ToolResult } from '../core/tool-contract.js';
import { LoadedPlugins } from './loaded-plugins.js';
import { ToolSet, type ActiveTool, type ToolsChanged } from './tool-set.js';
import { toolCards, type ToolCards } from './tool-presentation.js';
import { observeCall, observeSession } from '../providers/observability/call-hook.js';
import { logDisposalFailure } from './disposal-log.js';
import { holdReaperWatchdog } from '../providers/exec/process/reaper-watchdog.js';
import { CommandPolicy } from '../providers/policy/approval/command-policy.js';
import { ModelTextFilter } from '../core/model-text-filter.js';
import type { ToolArgs, ToolValue } from '../core/tool-types.js';
// A tool runs as its call, so a provider request it makes carries the call's session.
import { runAsToolCall } from '../core/tool-call-context.js';
import { checkCallInfo } from '../core/call-info.js';
import { quickArgs } from '../core/quick-args.js';
import { toPlainObject } from '../core/plain-args.js';

import type { PendingTool } from './tool-readiness.js';
export type { PendingTool } from './tool-readiness.js';
export type { ToolsChanged } from './tool-set.js';

/** class-validator and class-transformer: loaded on the first call whose arguments need them, not at start-up. */
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
  private readonly plugins = new LoadedPlugins(this.container);
  private readonly toolSet = new ToolSet(this.container, (cls) => this.plugins.ownersOf(cls)[0], this.plugins.graph);
  private readonly sessions = new Map<string, HostSession>();
  private disposal?: Promise<void>;
  /** The process's SIGKILL watchdog stops with the last host disposed (reaper-watchdog.ts). */
  private readonly releaseWatchdog = holdReaperWatchdog();

  /**
   * Loads plugins, then activates every tool whose requirements are now met.
   * Activation waits until the whole batch is in, so a `replace()` later in
   * the same call takes effect before any tool is constructed. If any plugin
   * fails to load, the whole batch is unloaded again; a tool that cannot be
   * built stays pending with its reason (`pending()`) and the rest loads.
   */
  async load(...modules: ContainerModule[]): Promise<void> {
    this.assertOpen();
    const batch: ContainerModule[] = [];
    const left: string[] = [];
    let current: ContainerModule | undefined;
    try {
      for (const module of modules) {
        current = module;
        const tokens = await this.plugins.add(module, (token) => this.toolSet.inUse(token));
        batch.push(module);
        // A tool built before this plugin would keep a replaced provider, or miss
        // an optional one that is now bound: rebuild the tools that use its tokens.
        left.push(...(await this.toolSet.deactivateUsers(tokens)));
      }
      current = undefined;
      await this.toolSet.refresh(left);
    } catch (error) {
      for (const module of batch.reverse()) {
        const tokens = this.plugins.tokensOnlyBoundBy(module);
        left.push(...(await this.toolSet.deactivate((tool) => this.usesOrIs(tool, tokens))));
        await this.plugins.remove(module).catch(() => undefined);
      }
      await this.toolSet.refresh(left).catch(() => undefined);
      const where = current ? `failed to load plugin "${pluginName(current)}"` : 'failed to activate tools';
      throw new Error(`${where}: ${messageOf(error)}`);
    }
  }

  /**
   * Unloads plugins. Tools that use a token it bound are deactivated and
   * rebuilt (or left pending); a provider it replaced comes back.
   */
  async unload(...modules: ContainerModule[]): Promise<void> {
    for (const module of modules) {
      if (!this.plugins.has(module)) throw new Error(`plugin "${pluginName(module)}" is not loaded`);
      // Tools go before the providers they use, so their dispose still finds them.
      const tokens = this.plugins.tokensOnlyBoundBy(module);
      const left = await this.toolSet.deactivate((tool) => this.usesOrIs(tool, tokens));
      const changed = await this.plugins.remove(module);
      left.push(...(await this.toolSet.deactivateUsers(changed)));
      await this.toolSet.refresh(left);
    }
  }

  /**
   * Replaces the binding of a token with `value` (tests and composition
   * roots): a `replace()` plugin loaded now, returned so it can be unloaded
   * (which restores the previous provider). The value is disposed with it.
   */
  async rebind<T>(token: ServiceIdentifier<T>, value: T): Promise<PluginModule> {
    const module = replace(token, { useValue: value }, `rebind ${tokenName(token)}`);
    await this.load(module);
    return module;
  }

  /**
   * Loads now what the first call would otherwise wait for: the bash parser
   * of the command rules, when a tool reaches the command policy (a provider
   * offers it as `warmUp()`). `createHost` calls it; call it again after a
   * `load` that brings rules.
   */
  async warmUp(): Promise<void> {
    if (!this.container.isBound(CommandPolicy) || !this.toolSet.inUse(CommandPolicy)) return;
    await (this.container.get(CommandPolicy) as CommandPolicy & { warmUp?: () => Promise<void> }).warmUp?.();
  }

  /** Calls `listener` whenever the tool list changed (a tool activated, deactivated, unloaded or left pending). Returns the unsubscribe function. */
  onToolsChanged(listener: (change: ToolsChanged) => void): () => void {
    return this.toolSet.onChange(listener);
  }

  isBound(token: ServiceIdentifier): boolean {
    return this.container.isBound(token);
  }

  /** Resolves a provider (for composition roots and diagnostics). */
  get<T>(token: ServiceIdentifier<T>): T {
    return this.container.get(token);
  }

  tools(): ToolDescriptor[] {
    return this.toolSet.descriptors();
  }

  pending(): PendingTool[] {
    return this.toolSet.pending();
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
    return toolCards(this.toolSet.get(name)?.instance, args, result);
  }

  /** A call without a session. Never rejects. The value is typed for the built-in tools. */
  call<N extends string>(tool: N, args: ToolArgs<N>, options: CallOptions = {}): Promise<ToolResult<ToolValue<N>>> {
    const info = checkCallInfo(options);
    if ('problem' in info) return Promise.resolve(errorResult(info.problem));
    return this.invoke<ToolValue<N>>(tool, args, {
      ...info,
      signal: options.signal ?? new AbortController().signal,
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
      const tool = this.toolSet.get(name);
      if (!tool) return this.missingTool(name);
      if (ctx.session?.disposed) return errorResult(`session "${ctx.session.id}" is disposed`);
      const known = {
        tool: name,
        names: argumentNames(tool.descriptor.inputSchema),
        ...(tool.instance.hiddenArgumentReasons ? { refusals: tool.instance.hiddenArgumentReasons() } : {}),
      };
      // Arguments that plainly meet their rules skip loading class-validator; the rest get its messages.
      const args = quickArgs(tool.meta.args, toPlainObject(rawArgs, known)) ?? (await argValidation()).validateArgs(tool.meta.args, rawArgs, known);
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
      await this.toolSet.deactivate(() => true);
      await this.container.unbindAll();
      await this.releaseWatchdog();
    })();
    return this.disposal;
  }

  private missingTool(name: string): ToolResult<never> {
    const pending = this.toolSet.findPending(name);
    if (!pending) return errorResult(`unknown tool "${name}"`);
    const why = pending.error ?? `missing ${pending.missing.join(', ')}`;
    return errorResult(`tool "${name}" is not ready: ${why}`);
  }

  /** Whether `tool` uses any of `tokens`, or is itself one of them (its class was bound by the plugin). */
  private usesOrIs(tool: ActiveTool, tokens: ReadonlySet<ServiceIdentifier>): boolean {
    return this.toolSet.uses(tool, tokens);
  }

  private assertOpen(operation?: string): void {
    if (!this.disposal) return;
    throw new Error(operation ? `cannot call ${operation}: the host is disposed` : 'the host is disposed');
  }
}
