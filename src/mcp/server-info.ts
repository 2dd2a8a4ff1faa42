import type { DshHost } from '../container/dsh-host.js';
import { renderPrompt } from '../container/prompt-assembler.js';
import { PACKAGE_VERSION } from '../version.js';

/** What the server reports as `serverInfo` in the initialize result. */
export const SERVER_INFO = { name: 'dsh-tools', version: PACKAGE_VERSION } as const;

/** What the server declares as its capabilities in the initialize result. */
export function serverCapabilities(): { tools: Record<string, never>; logging: Record<string, never> } {
  return { tools: {}, logging: {} };
}

/** The initialize result's `instructions`: the assembled prompt sections (none when empty). */
export function serverInstructions(host: DshHost): string | undefined {
  return renderPrompt(host.prompt()) || undefined;
}
