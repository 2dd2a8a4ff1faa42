import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODULE_ANCHOR } from '../../core/module-anchor.js';

/** One file of the page: its bytes and content type. */
export interface ConsoleAsset {
  readonly body: Buffer;
  readonly type: string;
}

/** The page's files by their path under `/console`; nothing else is served. */
const FILES: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '': { file: 'console.html', type: 'text/html; charset=utf-8' },
  '/': { file: 'console.html', type: 'text/html; charset=utf-8' },
  '/console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
  '/console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
};

/**
 * The page ships in the package (`npm run build` copies src/mcp/console/page
 * to dist/console): found from where this code runs — dist/…, dist/cjs/…,
 * the bundled CLI in dist/cli, or the sources under test.
 */
function pageDirectory(): string {
  const start = typeof __filename === 'string' ? __filename : fileURLToPath(MODULE_ANCHOR);
  for (let dir = path.dirname(start); ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, 'console'), path.join(dir, 'mcp/console/page')]) {
      if (existsSync(path.join(candidate, 'console.html'))) return candidate;
    }
    if (path.dirname(dir) === dir) throw new Error('the operator console page is missing from this installation (dist/console)');
  }
}

/** Reads the page's files once (at start: a missing file fails the start, not a request). */
export function loadConsoleAssets(): ReadonlyMap<string, ConsoleAsset> {
  const dir = pageDirectory();
  const assets = new Map<string, ConsoleAsset>();
  for (const [route, { file, type }] of Object.entries(FILES)) assets.set(route, { body: readFileSync(path.join(dir, file)), type });
  return assets;
}
