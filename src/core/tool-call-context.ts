import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallInfo } from './call-info.js';
import type { CallContext } from './tool-contract.js';

// The tool call a piece of code runs for, so what a tool asks of a provider
// carries the call's session without the tool author passing it along
// (docs/embedding.md, "A custom tool"). Callbacks created during a call (a
// timer, a stream listener) keep it after the call answered: they still act
// for that call's session.
const calls = new AsyncLocalStorage<CallContext>();

/** Runs `run` as the tool call `ctx` (the host does this around every `ToolInstance.run`). */
export function runAsToolCall<T>(ctx: CallContext, run: () => T): T {
  return calls.run(ctx, run);
}

/** The tool call this code runs for; undefined outside every call (a composition root, a test using a provider directly). */
export function currentToolCall(): CallContext | undefined {
  return calls.getStore();
}

const NO_METADATA = Object.freeze({});

/** The id and metadata of `ctx` (a context built by hand, without metadata, has none). */
export function callInfoOf(ctx: CallContext): CallInfo {
  return { callId: ctx.callId, ...(ctx.requestId === undefined ? {} : { requestId: ctx.requestId }), metadata: ctx.metadata ?? NO_METADATA };
}
