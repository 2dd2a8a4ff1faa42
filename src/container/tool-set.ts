import type { Container, ServiceIdentifier } from 'inversify';
import { argsSchemaOf, prepareArgsSchemas } from '../core/args-schemas.js';
import { readContributions } from '../core/contribution-collector.js';
import { ToolClass } from '../core/contributions.js';
import { withConstructorTokens } from '../core/constructor-tokens.js';
import { messageOf } from '../core/describe-value.js';
import { getToolMeta } from '../core/tool.decorator.js';
import type { ToolInstance, ToolMeta } from '../core/tool-contract.js';
import type { ToolDescriptor } from './prompt-assembler.js';
import { missingTokens, type PendingTool } from './tool-readiness.js';
import type { BindingGraph } from './binding-graph.js';

export interface ActiveTool {
  readonly meta: ToolMeta;
  readonly cls: ToolClass;
  readonly instance: ToolInstance<object>;
  readonly descriptor: ToolDescriptor;
  /** The plugin that bound the tool's class. */
  readonly plugin?: string;
}

/** What changed in the host's tool list (for backends that cache it): names, each list sorted. */
export interface ToolsChanged {
  /** Tools that became active (newly loaded, or pending → active). */
  readonly activated: readonly string[];
  /** Tools that left the active list (unloaded, rebuilt-and-now-pending, or disposed). */
  readonly deactivated: readonly string[];
  /** Tools pending now (waiting for a token, or failed to start: see `host.pending()`); a change of this list alone is announced too. */
  readonly pending: readonly string[];
}

/**
 * The host's tools: the active ones (built) and the pending ones (waiting for
 * a token, or whose constructor failed), re-evaluated on every load and
 * unload. A tool's requirements are its `@Tool` metadata plus what its
 * constructor injects. One tool that cannot start stays pending with the
 * reason; two tools of one name are refused.
 */
export class ToolSet {
  private readonly active = new Map<string, ActiveTool>();
  private pendingTools: PendingTool[] = [];
  private readonly listeners = new Set<(change: ToolsChanged) => void>();

  constructor(
    private readonly container: Container,
    /** The plugin that bound a tool class, for the reasons `pending()` gives. */
    private readonly ownerOf: (cls: ToolClass) => string | undefined,
    /** What bound providers inject: a tool uses what it reaches through them too. */
    private readonly graph: BindingGraph,
  ) {}

  get(name: string): ActiveTool | undefined {
    return this.active.get(name);
  }

  descriptors(): ToolDescriptor[] {
    return [...this.active.values()].map((tool) => tool.descriptor);
  }

  pending(): PendingTool[] {
    return this.pendingTools.map((tool) => ({ ...tool, missing: [...tool.missing] }));
  }

  findPending(name: string): PendingTool | undefined {
    return this.pendingTools.find((tool) => tool.name === name);
  }

  /** Calls `listener` after each load, unload or swap that changed the tool list. Returns the unsubscribe function. */
  onChange(listener: (change: ToolsChanged) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Whether an active tool uses `token` (requires it, takes it optionally or injects it, itself or through a provider). */
  inUse(token: ServiceIdentifier): boolean {
    return [...this.active.values()].some((tool) => this.uses(tool, new Set([token])));
  }

  /** Deactivates (and disposes) the tools that use any of `tokens`: they are rebuilt on the next refresh. */
  deactivateUsers(tokens: ReadonlySet<ServiceIdentifier>): Promise<string[]> {
    return this.deactivate((tool) => this.uses(tool, tokens));
  }

  /**
   * Whether `tool` is one of `tokens` (its class), or reaches one: what it
   * declares or injects, then what those providers inject, transitively
   * (src/container/binding-graph.ts). A load, unload or swap of one rebuilds it.
   */
  uses(tool: ActiveTool, tokens: ReadonlySet<ServiceIdentifier>): boolean {
    const reached = this.graph.reachable([tool.cls, ...tool.meta.requires, ...(tool.meta.optional ?? [])]);
    return [...reached].some((token) => tokens.has(token));
  }

  async deactivate(predicate: (tool: ActiveTool) => boolean): Promise<string[]> {
    const leaving = [...this.active.values()].filter(predicate);
    for (const tool of leaving) this.active.delete(tool.meta.name);
    await Promise.allSettled(leaving.map(async (tool) => tool.instance.dispose?.()));
    return leaving.map((tool) => tool.meta.name);
  }

  /**
   * Re-evaluates every discovered tool against the current bindings. Throws
   * only for two tools of one name (the load that brought the second fails);
   * a tool that cannot be built stays pending with its reason.
   */
  async refresh(left: readonly string[] = []): Promise<void> {
    const before = new Set([...this.active.keys()].filter((name) => !left.includes(name)));
    const pendingBefore = this.pendingTools.map((tool) => tool.name).sort().join('\n');
    const classes = this.discoveredClasses();
    await prepareArgsSchemas(classes.map((cls) => getToolMeta(cls)!.args));
    refuseDuplicateNames(classes, this.ownerOf);
    const gone = await this.deactivate((tool) => !classes.includes(tool.cls) || missingTokens(this.container, tool.meta, this.graph).length > 0);
    const pending: PendingTool[] = [];
    for (const cls of classes) {
      const meta = withConstructorTokens(getToolMeta(cls)!, cls);
      if ([...this.active.values()].some((tool) => tool.cls === cls)) continue;
      const plugin = this.ownerOf(cls);
      const missing = missingTokens(this.container, meta, this.graph);
      if (missing.length > 0) {
        pending.push({ name: meta.name, missing, ...(plugin === undefined ? {} : { plugin }) });
        continue;
      }
      try {
        this.activate(cls, meta, plugin);
      } catch (error) {
        const where = plugin === undefined ? '' : ` (plugin "${plugin}")`;
        pending.push({ name: meta.name, missing: [], error: `its constructor failed${where}: ${messageOf(error)}`, ...(plugin === undefined ? {} : { plugin }) });
      }
    }
    this.pendingTools = pending;
    this.announce(before, [...left, ...gone], pendingBefore);
  }

  private activate(cls: ToolClass, meta: ToolMeta, plugin: string | undefined): void {
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
    this.active.set(meta.name, { meta, cls, instance, descriptor, ...(plugin === undefined ? {} : { plugin }) });
  }

  private announce(before: ReadonlySet<string>, left: readonly string[], pendingBefore: string): void {
    const now = new Set(this.active.keys());
    const activated = [...now].filter((name) => !before.has(name)).sort();
    const deactivated = [...new Set([...before].filter((name) => !now.has(name)).concat(left.filter((name) => !now.has(name))))].sort();
    const pending = this.pendingTools.map((tool) => tool.name).sort();
    if (activated.length === 0 && deactivated.length === 0 && pending.join('\n') === pendingBefore) return;
    const change: ToolsChanged = { activated, deactivated, pending };
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure must not stop the others, nor the load.
      }
    }
  }

  private discoveredClasses(): ToolClass[] {
    return [...new Set(readContributions(this.container, ToolClass))].filter((cls) => getToolMeta(cls) !== undefined);
  }
}

function refuseDuplicateNames(classes: readonly ToolClass[], ownerOf: (cls: ToolClass) => string | undefined): void {
  const byName = new Map<string, ToolClass[]>();
  for (const cls of classes) {
    const name = getToolMeta(cls)!.name;
    byName.set(name, [...(byName.get(name) ?? []), cls]);
  }
  for (const [name, same] of byName) {
    if (same.length < 2) continue;
    const who = same.map((cls) => `${cls.name}${ownerOf(cls) === undefined ? '' : ` of plugin "${ownerOf(cls)}"`}`).join(' and ');
    throw new Error(`two tools are named "${name}" (${who}); unload one, or rename one (renamedTool) before loading it`);
  }
}
