import { InvalidArgumentError } from 'commander';
import type { DshHost } from '../container/dsh-host.js';

/** `serve --heartbeat-interval <seconds>`, parsed to milliseconds. */
export interface HeartbeatFlag {
  readonly heartbeatInterval?: number;
}

/** Seconds (fractions allowed, so a test can use a short one) to milliseconds; 0 sends no heartbeat. */
export function parseHeartbeatInterval(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > 3600) {
    throw new InvalidArgumentError('expected seconds: a number from 0 (no heartbeat) to 3600');
  }
  return Math.round(seconds * 1000);
}

/** Binds the interval on the host when the flag was given; without it connections use the default (15 s). */
export async function loadHeartbeat(host: DshHost, flags: HeartbeatFlag): Promise<void> {
  if (flags.heartbeatInterval === undefined) return;
  const { heartbeatModule } = await import('../mcp/transport/progress-heartbeat.js');
  await host.load(heartbeatModule(flags.heartbeatInterval));
}
