/**
 * The trace a client sent with a call (W3C `traceparent`, e.g. in MCP's
 * `params._meta.traceparent`): the call's span continues it, so the client's
 * trace shows the tool call under its own span. Parsed here (the package
 * depends on the OpenTelemetry API only, which has no W3C propagator of its own).
 */
export interface ClientTrace {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The parent a `traceparent` names; undefined for anything malformed (version ff, all-zero ids, wrong lengths). */
export function parseTraceParent(value: unknown): ClientTrace | undefined {
  if (typeof value !== 'string' || value.length > 512) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version 00 has exactly four fields; later versions may add more after a dash.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16) & 0xff };
}

const byCall = new Map<string, ClientTrace>();

/** Remembers the client's trace for the call `callId` until `forget` (the transport calls both around the call). */
export function rememberClientTrace(callId: string, traceparent: unknown): () => void {
  const trace = parseTraceParent(traceparent);
  if (trace === undefined) return () => undefined;
  byCall.set(callId, trace);
  return () => void byCall.delete(callId);
}

export function clientTraceOf(callId: string): ClientTrace | undefined {
  return byCall.get(callId);
}
