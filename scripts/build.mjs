// `npm run build`: the ESM build (dist/, with the CLI and its bundle) and the CommonJS build
// (dist/cjs/, the library entries only), each with its own typings.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const cjsSource = path.join(root, '.cjs-src');

function compile(project) {
  // Throws rather than exits, so the finally below still removes the copy.
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc -p ${project} failed`);
}

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
compile('tsconfig.build.json');
// The operator console's page (src/mcp/console/console-assets.ts finds it here): static files, no build step.
cpSync(path.join(root, 'src/mcp/console/page'), path.join(root, 'dist/console'), { recursive: true });
// The argument schemas, generated once here so the CLI starts without class-validator.
const cached = spawnSync(process.execPath, [path.join(root, 'scripts/cache-arg-schemas.mjs')], { cwd: root, stdio: 'inherit' });
if (cached.status !== 0) throw new Error('caching the argument schemas failed');
// The native call helper for this architecture (src/providers/exec/engine/native/call-helper.ts finds it in dist/native).
spawnSync(process.execPath, [path.join(root, 'scripts/build-call-helper.mjs')], { cwd: root, stdio: 'inherit' });
// The CLI as one CommonJS file with its V8 code cache (start-up; dist/cli/main.js runs it).
const bundled = spawnSync(process.execPath, [path.join(root, 'scripts/bundle-cli.mjs')], { cwd: root, stdio: 'inherit' });
if (bundled.status !== 0) throw new Error('bundling the CLI failed');

// TypeScript reads a file's module format from the package.json nearest the
// source, so the CommonJS build compiles a copy of src/ under a CommonJS scope.
rmSync(cjsSource, { recursive: true, force: true });
try {
  cpSync(path.join(root, 'src'), path.join(cjsSource, 'src'), { recursive: true });
  writeFileSync(path.join(cjsSource, 'package.json'), '{ "type": "commonjs" }\n');
  // CommonJS has no import.meta: its anchor for resolving optional packages is the file itself.
  writeFileSync(path.join(cjsSource, 'src/core/module-anchor.ts'), 'export const MODULE_ANCHOR: string = __filename;\n');
  compile('tsconfig.cjs.json');
} finally {
  rmSync(cjsSource, { recursive: true, force: true });
}
mkdirSync(path.join(root, 'dist/cjs'), { recursive: true });
// Node (and TypeScript, for the .d.ts files) read dist/cjs as CommonJS from this marker.
writeFileSync(path.join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
