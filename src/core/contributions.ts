import type { BindToFluentSyntax, ContainerModuleLoadOptions, Newable, ServiceIdentifier } from 'inversify';
import { PromptSection } from './prompt-section.js';
import { getToolMeta } from './tool.decorator.js';
import type { ToolInstance } from './tool-contract.js';

type Bind = ContainerModuleLoadOptions['bind'];

/** Constructor of a `@Tool` class, multi-bound so the host can discover it. */
export type ToolClass = Newable<ToolInstance<never>>;

export const ToolClass: ServiceIdentifier<ToolClass> = Symbol.for('dsh.ToolClass');

/**
 * Registers a `@Tool` class: binds the class itself (transient: the host owns
 * the instance's lifetime) and announces it under `ToolClass`.
 */
export function bindTool(bind: Bind, tool: ToolClass): void {
  if (!getToolMeta(tool)) throw new Error(`bindTool: ${tool.name} is not decorated with @Tool`);
  bind(tool).toSelf().inTransientScope();
  bind(ToolClass).toConstantValue(tool);
}

export function bindPromptSection(bind: Bind, section: PromptSection): void {
  bind(PromptSection).toConstantValue(Object.freeze({ ...section }));
}

/**
 * The hook the host's `bind` carries (see `guardedModule`): it records a token
 * as a single-provider seam. A plain Inversify container has none, so the
 * helpers below work there too, without the check.
 */
export const DECLARE_SINGLE_PROVIDER: unique symbol = Symbol('dsh.declareSingleProvider');

interface SingleProviderHook {
  readonly [DECLARE_SINGLE_PROVIDER]?: (token: ServiceIdentifier) => void;
}

/**
 * Starts the binding of a seam that takes exactly one provider: from now on
 * the host fails the load of any plugin that binds a second one (`replace()`
 * stays the way to swap it). The seam is declared here, where it is bound,
 * so the host needs no list of every provider seam.
 */
export function bindSeam<T>(bind: Bind, token: ServiceIdentifier<T>): BindToFluentSyntax<T> {
  (bind as Bind & SingleProviderHook)[DECLARE_SINGLE_PROVIDER]?.(token);
  return bind(token);
}

/** Binds a singleton provider as the one provider of its seam (`bindSeam`). */
export function bindProvider<T>(bind: Bind, token: ServiceIdentifier<T>, provider: Newable<T>): void {
  bindSeam(bind, token).to(provider).inSingletonScope();
}

/** Why a token is not bound (e.g. a native module that did not install); shown by pending tools that need it. */
export interface Unavailable {
  readonly token: ServiceIdentifier;
  readonly reason: string;
}

export const Unavailable: ServiceIdentifier<Unavailable> = Symbol.for('dsh.Unavailable');

/**
 * Records that a plugin could not provide `token` and why: a tool that
 * requires it stays pending with `missing <Token> (<reason>)` instead of a
 * bare token name.
 */
export function bindUnavailable(bind: Bind, token: ServiceIdentifier, reason: string): void {
  bind(Unavailable).toConstantValue(Object.freeze({ token, reason }));
}
