import { readFileSync } from 'node:fs';

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
