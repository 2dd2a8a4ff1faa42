import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * What `npm install --prefix app --omit=dev ./<tarball>` leaves in `app/`,
 * made from this checkout's own install instead of npm's cache: the package
 * from the tarball, and its production dependencies copied from the
 * checkout's `node_modules` as `npm ls --omit=dev` lists them (the
 * lockfile's tree). No registry and no shared cache are asked, so a fresh
 * machine (a clean `npm_config_cache`, where a lockfile install leaves no
 * packuments behind) builds the same `app/` as a developer's.
 */
export function appFromCheckout(root: string, tarball: string, app: string): void {
  const own = path.join(app, 'node_modules', 'dsh-tools');
  mkdirSync(own, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', own, '--strip-components=1'], { stdio: 'ignore' });
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const copied: string[] = [];
  for (const dir of listed.split('\n').filter(Boolean).sort()) {
    const at = dir.indexOf(`${path.sep}node_modules${path.sep}`);
    if (at < 0) continue; // the checkout itself: it came from the tarball
    // A package nested in one already copied came with it.
    if (copied.some((parent) => dir.startsWith(parent + path.sep))) continue;
    cpSync(dir, path.join(app, dir.slice(at + 1)), { recursive: true });
    copied.push(dir);
  }
}
