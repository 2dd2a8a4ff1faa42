// The bundled CLI (start-up, docs/performance.md): dist/cli/cli-program.js and
// the packages it loads, as one minified CommonJS file beside dist/cli/main.js,
// then its V8 code caches, one real run per command (scripts/record-code-cache.mjs).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { recordCodeCache } from './record-code-cache.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist/cli/dsh-tools.cjs');

// Left as packages: native or file-reading ones (the PTY modules, the bash
// grammar's wasm), the container and cluster clients and the HTTP transport,
// which only their compositions or flags load.
const external = [
  'node-pty',
  '@lydell/node-pty',
  'dockerode',
  '@kubernetes/client-node',
  'web-tree-sitter',
  'tree-sitter-bash',
  'hono',
  '@hono/*',
];

// The lazy-module loader picks `require` when it exists, as it does in this
// bundle: the CommonJS build's way. Here it takes the ES build's way,
// `import()`, which esbuild bundles or, for the external packages, leaves to
// node (@kubernetes/client-node is ESM-only).
const ES_BRANCH = [/[\\/]core[\\/]lazy-module\.js$/];
const esBranch = {
  name: 'es-branch',
  setup(build) {
    for (const filter of ES_BRANCH) {
      build.onLoad({ filter }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        const probe = "typeof require === 'function'";
        if (!text.includes(probe)) throw new Error(`${args.path} no longer tests \`${probe}\`: update scripts/bundle-cli.mjs`);
        return { contents: text.replace(probe, 'false'), loader: 'js' };
      });
    }
  },
};

// Caches of an earlier bundle would only be refused: remove them.
for (const name of readdirSync(path.dirname(bundle))) {
  if (name.startsWith('dsh-tools.cjs.') && name.endsWith('.cache')) rmSync(path.join(path.dirname(bundle), name));
}
const result = await esbuild.build({
  entryPoints: [path.join(root, 'dist/cli/cli-program.js')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: bundle,
  external,
  minify: true,
  // The argument-schema cache is keyed by class names.
  keepNames: true,
  charset: 'ascii',
  // Our CLI modules read files relative to themselves; the bundle sits in their directory.
  define: { 'import.meta.url': '__dshBundleUrl' },
  banner: { js: 'var __dshBundleUrl=require("url").pathToFileURL(__filename).href;' },
  plugins: [esBranch],
  logLevel: 'warning',
  write: false,
});
// `import()` inside a vm.Script needs an experimental callback on Node 20:
// the loader passes `__dshImport`, an import() of its own (same directory).
function importThroughLoader(text) {
  const isExternal = (target) => external.some((name) => target === name || target.startsWith(name.endsWith('/*') ? name.slice(0, -1) : `${name}/`));
  return text.replace(/(?<![\w$.])import\((?="([^"]+)"\)|[A-Za-z_$][\w$]*\))/g, (_match, target) => {
    if (target !== undefined && !isExternal(target)) throw new Error(`the bundle imports ${target} at run time, which is not external`);
    return '__dshImport(';
  });
}
const code = importThroughLoader(result.outputFiles[0].text);
if (/(?<![\w$.])import\(/.test(code)) throw new Error('the bundle has an import() the loader does not serve');
// esbuild leaves non-ASCII characters in regular expressions (validator.js);
// the loader reads the bundle as latin1 (no UTF-8 decoding), so they become
// \u escapes, which mean the same character in a regular expression, a
// string or an identifier alike.
const ascii = code.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
// The id ties the code cache to this exact bundle (V8 itself compares only the source length).
const id = createHash('sha256').update(ascii).digest('hex').slice(0, 32);
writeFileSync(bundle, `// dsh-tools-bundle ${id}\n${ascii}`, 'latin1');
await recordCodeCache(root);
