import type { ServiceIdentifier } from 'inversify';
import type { DshHost } from '../../container/dsh-host.js';
import { PluginModule } from '../../core/plugin-module.js';
import type { ToolProgress } from '../../core/tool-contract.js';

/*
 * TypeScript-SDK clients give up on a request after 60 s unless a progress
 * notification resets their clock (`resetTimeoutOnProgress`). Commands only
 * report progress when they print, so a quiet one would time out there while
 * its own timeout (120 s by default) is still far away. While a call that
 * asked for progress runs, a heartbeat goes out whenever no notification was
 * sent for one interval.
 */

/** How often a quiet call reports that it still runs. */
export interface HeartbeatSettings {
  /** Milliseconds without a notification before a heartbeat goes out; 0 sends none. */
  readonly intervalMs: number;
}

export const HeartbeatSettings: ServiceIdentifier<HeartbeatSettings> = Symbol.for('dsh.mcp.HeartbeatSettings');

/** Well under the 60 s request timeout of TypeScript-SDK clients. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** `serve --heartbeat-interval`: binds the interval every connection of this host uses. */
export function heartbeatModule(intervalMs: number): PluginModule {
  return new PluginModule('mcp:heartbeat', ({ bind }) => {
    bind(HeartbeatSettings).toConstantValue({ intervalMs });
  });
}

/** The heartbeat's message: how long the call has run, in whole seconds. */
export function heartbeatMessage(elapsedMs: number): string {
  return `still running after ${Math.floor(elapsedMs / 1000)}s`;
}

/** What clients need to know for long calls, said in the server's instructions. */
function heartbeatNote(intervalMs: number): string {
  return (
    `A call that asks for progress (a progressToken) gets a progress notification at least every ${intervalMs / 1000} s ` +
    'while it runs, even without output: a client whose request timeout is shorter than a command needs to reset it ' +
    'on progress (resetTimeoutOnProgress in the TypeScript SDK).'
  );
}

/** The server's instructions with the heartbeat note appended (unchanged when heartbeats are off). */
export function withHeartbeatNote(instructions: string | undefined, host: DshHost): string | undefined {
  const intervalMs = heartbeatIntervalOf(host);
  if (intervalMs <= 0) return instructions;
  return instructions ? `${instructions}\n\n${heartbeatNote(intervalMs)}` : heartbeatNote(intervalMs);
}

/** The host's heartbeat interval in milliseconds (`--heartbeat-interval`, else the default). */
export function heartbeatIntervalOf(host: DshHost): number {
  return host.isBound(HeartbeatSettings) ? host.get(HeartbeatSettings).intervalMs : DEFAULT_HEARTBEAT_MS;
}

/**
 * Runs `call` with a progress listener that forwards the tool's own reports
 * to `forward` and adds heartbeats while nothing else was sent. `forward`
 * (the connection's forwarder, which drops a report whose `bytes` did not
 * grow) sees one sequence that always grows: each report is its bytes plus
 * the heartbeats sent before it. The timer is unref'd and cleared when the
 * call settles, so nothing is sent after the result and nothing keeps the
 * process alive. Without `forward` (no progress token) it only runs `call`.
 */
export async function withHeartbeat<T>(
  intervalMs: number,
  forward: ((progress: ToolProgress) => void) | undefined,
  call: (onProgress: ((progress: ToolProgress) => void) | undefined) => Promise<T>,
): Promise<T> {
  if (forward === undefined) return call(undefined);
  const started = performance.now();
  let bytes = 0;
  let beats = 0;
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    if (ended || intervalMs <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(beat, intervalMs);
    timer.unref();
  };
  const beat = (): void => {
    if (ended) return;
    beats += 1;
    const elapsedMs = performance.now() - started;
    forward({ bytes: bytes + beats, lastLine: heartbeatMessage(elapsedMs), elapsedMs });
    arm();
  };
  const onProgress = (progress: ToolProgress): void => {
    if (ended || !(progress.bytes > bytes)) return;
    bytes = progress.bytes;
    forward({ ...progress, bytes: bytes + beats });
    arm();
  };
  arm();
  try {
    return await call(onProgress);
  } finally {
    ended = true;
    clearTimeout(timer);
  }
}
