import { readFileSync } from 'node:fs';
import type { DshHost } from '../container/dsh-host.js';
import { renderPrompt } from '../container/prompt-assembler.js';

/** The package version, read once; `0.0.0` if package.json is not where the build puts it. */
function packageVersion(): string {
  try {
    const url = new URL('../../package.json', import.meta.url);
    const version = (JSON.parse(readFileSync(url, 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** What the server reports as `serverInfo` in the initialize result. */
export const SERVER_INFO = { name: 'dsh-tools', version: packageVersion() } as const;

/** What the server declares as its capabilities in the initialize result. */
export function serverCapabilities(): { tools: Record<string, never>; logging: Record<string, never> } {
  return { tools: {}, logging: {} };
}

/** The initialize result's `instructions`: the assembled prompt sections (none when empty). */
export function serverInstructions(host: DshHost): string | undefined {
  return renderPrompt(host.prompt()) || undefined;
}
