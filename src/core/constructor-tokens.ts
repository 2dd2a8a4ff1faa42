import type { ServiceIdentifier } from 'inversify';
import type { ToolMeta } from './tool-contract.js';

// Where Inversify 7 (pinned ~7.11 in package.json) keeps what `@inject` and
// `@optional` recorded about a class's constructor. Read here so a tool needs
// not repeat its constructor's tokens in `@Tool({ requires, optional })`.
const CLASS_METADATA = '@inversifyjs/core/classMetadataReflectKey';

interface ArgumentMetadata {
  readonly value?: unknown;
  readonly optional?: boolean;
}

export interface ConstructorToken {
  readonly token: ServiceIdentifier;
  readonly optional: boolean;
}

interface ClassMetadata {
  readonly constructorArguments?: readonly (ArgumentMetadata | undefined)[];
  readonly properties?: ReadonlyMap<string | symbol, ArgumentMetadata>;
  readonly scope?: string;
}

const metadataOf = (cls: unknown): ClassMetadata | undefined =>
  typeof cls === 'function' ? (Reflect.getOwnMetadata(CLASS_METADATA, cls) as ClassMetadata | undefined) : undefined;

function tokensOf(entries: Iterable<ArgumentMetadata | undefined>): ConstructorToken[] {
  const tokens: ConstructorToken[] = [];
  for (const argument of entries) {
    const token = unwrap(argument?.value);
    if (token !== undefined) tokens.push({ token, optional: argument?.optional === true });
  }
  return tokens;
}

/** The tokens `cls`'s constructor injects (`@inject`), each with whether it is `@optional()`. */
function constructorTokens(cls: unknown): ConstructorToken[] {
  return tokensOf(metadataOf(cls)?.constructorArguments ?? []);
}

/** Everything a built `cls` holds from the container: its constructor's tokens and its `@inject` properties'. */
export function injectedTokens(cls: unknown): ConstructorToken[] {
  return [...constructorTokens(cls), ...tokensOf(metadataOf(cls)?.properties?.values() ?? [])];
}

/** Whether `cls` says it is a singleton itself (`@injectable('Singleton')`), whatever scope its binding names. */
export function declaresSingleton(cls: unknown): boolean {
  return metadataOf(cls)?.scope === 'Singleton';
}

/** A lazy identifier (`new LazyServiceIdentifier(() => X)`) stands for X. */
function unwrap(value: unknown): ServiceIdentifier | undefined {
  if (value === undefined || value === null) return undefined;
  const lazy = value as { unwrap?: () => unknown };
  if (typeof value === 'object' && typeof lazy.unwrap === 'function') return lazy.unwrap() as ServiceIdentifier;
  return value as ServiceIdentifier;
}

/**
 * A tool's metadata with its constructor's tokens added: an injected token is
 * required unless `@optional()`, so a tool that injects a token it forgot in
 * `requires` waits for it (pending) instead of failing, and a swap of any token
 * it injects rebuilds it.
 */
export function withConstructorTokens(meta: ToolMeta, cls: unknown): ToolMeta {
  const injected = constructorTokens(cls);
  if (injected.length === 0) return meta;
  const requires = new Set(meta.requires);
  const optional = new Set(meta.optional ?? []);
  for (const { token, optional: isOptional } of injected) {
    if (requires.has(token) || optional.has(token)) continue;
    (isOptional ? optional : requires).add(token);
  }
  return { ...meta, requires: [...requires], optional: [...optional] };
}
