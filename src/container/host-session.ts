import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type { ToolArgs, ToolValue } from '../core/tool-types.js';
import { errorResult, type CallContext, type SessionContext, type ToolProgress, type ToolResult } from '../core/tool-contract.js';
import { checkCallInfo, type CallInfoOptions } from '../core/call-info.js';
import { DisposableScope, type DisposalFailure, type SessionScope } from '../core/session-scope.js';

export interface SessionOptions {
  readonly id?: string;
  /** Working directory of the agent; relative paths resolve against process.cwd(). */
  readonly cwd?: string;
  /** Transcript path, exported to commands as `DSH_SESSION_JSONL`. */
  readonly jsonlPath?: string;
  /** Who opened the session: the name of the token it was opened with (HTTP), else undefined. */
  readonly caller?: string;
}

/**
 * How a backend runs one call. `callId` (unique per call; default a UUID),
 * `requestId` (its protocol's id for the request) and `metadata` (string
 * values: tenant, user…) reach the tool as its `CallContext` and
 * `currentToolCall()`, and env contributors as `execution.call`; never the
 * model, never a command's environment unless a contributor puts them there.
 * Limits in `CALL_INFO_LIMITS`; a call that exceeds them, or passes a
 * non-string value, is refused with `Error: invalid call metadata: …`.
 */
export interface CallOptions extends CallInfoOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: ToolProgress) => void;
}

type Invoke = <V>(tool: string, args: unknown, ctx: CallContext) => Promise<ToolResult<V>>;

/**
 * One agent session: the owner of its background tasks and persistent shell.
 * Its services live in its `scope` (made on first use); `onDispose` hooks
 * join the same scope. `dispose()` aborts the session's in-flight calls,
 * then disposes the scope newest first, one at a time: a failing disposer
 * is reported and the rest still run.
 */
export class HostSession implements SessionContext {
  readonly cwd?: string;
  readonly jsonlPath?: string;
  readonly caller?: string;
  private readonly ownScope: DisposableScope;
  private readonly pendingNotices: Array<{ readonly text: string; readonly key?: string }> = [];
  private readonly noticeListeners = new Set<(notice: string) => void>();
  private readonly lifetime = lifetimeController();
  private disposal?: Promise<void>;

  constructor(
    readonly id: string,
    options: SessionOptions,
    private readonly invoke: Invoke,
    private readonly onClosed: (session: HostSession) => void,
    /** Applied to every notice before anyone sees it (secret redaction). */
    private readonly filterNotice: (notice: string) => string = (notice) => notice,
    /** Told about a disposer that failed while the session closed. */
    onDisposalFailure: DisposalFailure = () => undefined,
  ) {
    this.ownScope = new DisposableScope(onDisposalFailure);
    // An absolute cwd is kept as given: the sandbox policy resolves symlinks
    // before `..`, which a lexical path.resolve would already have folded.
    this.cwd = options.cwd === undefined || path.isAbsolute(options.cwd) ? options.cwd : path.resolve(options.cwd);
    this.jsonlPath = options.jsonlPath === undefined ? undefined : path.resolve(options.jsonlPath);
    this.caller = options.caller;
  }

  get scope(): SessionScope {
    return this.ownScope;
  }

  get disposed(): boolean {
    return this.disposal !== undefined;
  }

  /**
   * Runs one tool call as this session. Never rejects: failures are `Error: …`
   * results. The value is typed for the built-in tools (see `BuiltinToolValues`).
   */
  call<N extends string>(tool: N, args: ToolArgs<N>, options: CallOptions = {}): Promise<ToolResult<ToolValue<N>>> {
    const info = checkCallInfo(options);
    if ('problem' in info) return Promise.resolve(errorResult(info.problem));
    const signals = [this.lifetime.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    return this.invoke<ToolValue<N>>(tool, args, {
      ...info,
      session: this,
      signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals),
      onProgress: options.onProgress,
    });
  }

  onDispose(hook: () => void | Promise<void>): void {
    if (this.disposed) {
      void Promise.resolve().then(hook).catch(() => undefined);
      return;
    }
    this.ownScope.add('an onDispose hook', hook);
  }

  notify(notice: string, key?: string): void {
    if (this.disposed) return;
    notice = this.filterNotice(notice);
    this.pendingNotices.push({ text: notice, key });
    for (const listener of this.noticeListeners) {
      try {
        listener(notice);
      } catch {
        // A listener's failure must not stop delivery to the others.
      }
    }
  }

  withdraw(key: string): void {
    for (let i = this.pendingNotices.length - 1; i >= 0; i--) {
      if (this.pendingNotices[i]!.key === key) this.pendingNotices.splice(i, 1);
    }
  }

  /** Notices queued since the last take (e.g. to inject into the next model turn). */
  takeNotices(): string[] {
    return this.pendingNotices.splice(0).map((notice) => notice.text);
  }

  /** Called for each notice as it arrives. Returns an unsubscribe function. */
  onNotice(listener: (notice: string) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  dispose(): Promise<void> {
    this.disposal ??= this.runDisposal();
    return this.disposal;
  }

  private async runDisposal(): Promise<void> {
    this.lifetime.abort(new Error('session disposed'));
    this.noticeListeners.clear();
    await this.ownScope.dispose();
    this.pendingNotices.length = 0;
    this.onClosed(this);
  }
}

/** Every call of the session listens to its lifetime: many at once are expected, not a leak (no Node warning at the 11th). */
function lifetimeController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
