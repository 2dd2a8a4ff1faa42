import type { DshHost } from '../../container/dsh-host.js';
import { renderPrompt } from '../../container/prompt-assembler.js';
import { PACKAGE_VERSION } from '../../version.js';
import { withHeartbeatNote } from '../transport/progress-heartbeat.js';
import { SPILL_RESOURCE_CAPABILITIES } from '../calls/spill-capabilities.js';

/** What the server reports as `serverInfo` in the initialize result. */
export const SERVER_INFO = { name: 'dsh-tools', version: PACKAGE_VERSION } as const;

/** What the server declares as its capabilities in the initialize result. */
export function serverCapabilities(
  options: { resources: boolean } = { resources: true },
): { tools: Record<string, never>; logging: Record<string, never>; resources?: Record<string, never> } {
  return { tools: {}, logging: {}, ...(options.resources ? SPILL_RESOURCE_CAPABILITIES : {}) };
}

/** The initialize result's `instructions`: the assembled prompt sections, then what a client needs for long calls. */
export function serverInstructions(host: DshHost): string | undefined {
  return withHeartbeatNote(renderPrompt(host.prompt()) || undefined, host);
}
