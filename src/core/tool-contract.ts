import type { ServiceIdentifier } from 'inversify';
import type { CallMetadata } from './call-info.js';
import type { CallPlan } from './call-plan.js';
import type { SessionScope } from './session-scope.js';

/** One block of model-visible text. */
export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}

/**
 * What every tool call returns: the model-visible text, `isError` for
 * infrastructure or validation failures, and a typed value so programs never
 * parse the text.
 */
export interface ToolResult<V = unknown> {
  readonly content: TextContent[];
  readonly isError?: boolean;
  readonly value?: V;
}

/** Progress of a running call, reported through `CallContext.onProgress`. */
export interface ToolProgress {
  /** Output bytes seen so far (stdout + stderr). */
  readonly bytes: number;
  /** The last complete, non-empty output line, if any. */
  readonly lastLine?: string;
  /** Milliseconds since the call started. */
  readonly elapsedMs: number;
}

/**
 * The calling agent session as providers and tools see it. Providers hang
 * per-session state on `id` and register cleanup with `onDispose`.
 */
export interface SessionContext {
  readonly id: string;
  readonly cwd?: string;
  readonly jsonlPath?: string;
  /** Who opened the session: the name of the token it was opened with (HTTP), else undefined. */
  readonly caller?: string;
  readonly disposed: boolean;
  /** Runs (and is awaited) when the session is disposed. Registering after disposal runs the hook at once. */
  onDispose(hook: () => void | Promise<void>): void;
  /**
   * Queues a notice for the next model turn (e.g. a finished background
   * task). Ignored after disposal. A `key` lets a later `withdraw` drop it.
   */
  notify(notice: string, key?: string): void;
  /** Drops queued (not yet taken) notices with this key: the model already learned it another way. */
  withdraw(key: string): void;
  /** The session's own services (see `scopeOf`, which gives one to a session without it). */
  readonly scope?: SessionScope;
}

/** Per-call context handed to `ToolInstance.run`. */
export interface CallContext {
  readonly session?: SessionContext;
  readonly signal: AbortSignal;
  /** Unique per call: the backend's (`CallOptions.callId`), else a UUID the host made. */
  readonly callId: string;
  /** The id the backend's protocol gave the request (the MCP JSON-RPC id, as a string), when it passed one. */
  readonly requestId?: string;
  /**
   * What the backend passed about the call (tenant, user…), checked and
   * frozen; the host sets it on every call (empty when none). Never shown
   * to the model nor put in a command's environment by the host.
   */
  readonly metadata?: CallMetadata;
  readonly onProgress?: (progress: ToolProgress) => void;
  /**
   * Takes the call's plan once the policy decided it (the host's call hook
   * sets it, to carry the plan to the call's end event; absent when nobody
   * observes the call). The last plan handed over is the call's.
   */
  readonly onPlan?: (plan: CallPlan) => void;
}

/**
 * Turns a provider's progress listener into the call's: providers report
 * bytes and the last line (already throttled); the tool adds the elapsed time.
 */
export function withElapsed(
  report: (progress: ToolProgress) => void,
  started = Date.now(),
): (progress: { readonly bytes: number; readonly lastLine?: string }) => void {
  return (progress) => report({ ...progress, elapsedMs: Date.now() - started });
}

/** A UI card describing a call before it runs (pure; never throws). */
export interface CallPresentation {
  readonly title: string;
  readonly command?: string;
  readonly description?: string;
  readonly cwd?: string;
}

/** A UI card describing a finished call (pure; never throws). */
export interface ResultPresentation {
  /** Output with any parsed exit/signal marker removed. */
  readonly body: string;
  readonly exitCode?: number;
  readonly signal?: string;
  readonly timedOut?: boolean;
  readonly isError: boolean;
}

export type JsonSchema = Record<string, unknown>;

/**
 * What a tool class implements. The pipeline validates arguments before
 * `run`; anything thrown from `run` becomes an `Error: <message>` result.
 */
export interface ToolInstance<A = unknown> {
  run(args: A, ctx: CallContext): Promise<ToolResult>;
  /** Overrides the decorator description (e.g. from config). */
  description?(): string;
  /** Adapts the generated schema to capability facts (e.g. drops a disabled parameter). */
  adjustSchema?(schema: JsonSchema): JsonSchema;
  /**
   * Why an argument the schema hides is refused, when "unknown argument" would
   * mislead (e.g. escalation in a composition that refuses it). Keyed by name.
   */
  hiddenArgumentReasons?(): Readonly<Record<string, string>>;
  presentCall?(args: unknown): CallPresentation | undefined;
  presentResult?(result: ToolResult): ResultPresentation | undefined;
  /** Called when the tool is deactivated or the host is disposed. */
  dispose?(): void | Promise<void>;
}

/**
 * Hints for clients about what a tool does (MCP tool annotations). They are
 * hints, never a security boundary: a client must not trust them to decide
 * what is safe.
 */
export interface ToolAnnotations {
  /** True when the tool changes nothing in its environment. */
  readonly readOnlyHint?: boolean;
  /** When not read-only: true when it may destroy or overwrite things (not only add). */
  readonly destructiveHint?: boolean;
  /** True when repeating a call with the same arguments has no further effect. */
  readonly idempotentHint?: boolean;
  /** True when it may reach things outside the host (network, other systems). */
  readonly openWorldHint?: boolean;
}

/** Metadata recorded by `@Tool`. */
export interface ToolMeta {
  readonly name: string;
  /** A short human-readable name clients show instead of `name`. */
  readonly title?: string;
  readonly description: string;
  readonly annotations?: ToolAnnotations;
  /**
   * JSON Schema (type `object`) of the result as MCP sends it (`structuredContent`):
   * the `value` without null fields and without `stdout`/`stderr`/`output`, plus
   * `text`, the whole model-visible text (see `src/mcp/calls/call-result.ts`).
   */
  readonly outputSchema?: JsonSchema;
  /** The class-validator / class-transformer decorated argument class. */
  readonly args: new () => object;
  /** Tokens that must be bound before the tool activates. */
  readonly requires: readonly ServiceIdentifier[];
  /** Tokens used when bound. */
  readonly optional?: readonly ServiceIdentifier[];
}

/** A tool failure whose message is shown to the model as `Error: <message>`. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export function textResult<V>(text: string, value?: V): ToolResult<V> {
  return { content: [{ type: 'text', text }], value };
}

export function errorResult(message: string): ToolResult<never> {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
}
