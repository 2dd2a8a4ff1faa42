// The bundled CLI (start-up, docs/performance.md): dist/cli/cli-program.js and
// the packages it loads, as minified CommonJS files beside dist/cli/main.js (the
// start-up bundle and the chunks of packages loaded later), then their V8 code
// caches, one real run per command (scripts/record-code-cache.mjs).
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

/**
 * Packages that no command needs before its first answer, each group built as
 * a chunk of its own (`dsh-tools.<group>.cjs`, with its own code caches): the
 * start-up bundle does not read them, and a command deserializes their cache
 * only when it loads them (the MCP SDK after `serve` has answered
 * `initialize`, validation and metrics with the first tool call, yaml with
 * --config, execa with `doctor`, the tracing API when tracing is on).
 */
const CHUNKS = {
  mcp: ['@modelcontextprotocol/server'],
  validation: ['class-validator', 'class-transformer'],
  // prom-client reads the tracing API too: one chunk, one copy.
  observability: ['prom-client', '@opentelemetry/api'],
  yaml: ['yaml'],
  doctor: ['execa'],
};
const groupOf = new Map(Object.entries(CHUNKS).flatMap(([group, names]) => names.map((name) => [name, group])));
const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

// In the start-up bundle a chunked package is a CommonJS module whose exports
// are the chunk's (`__dshChunk`, from the loader): esbuild's interop and lazy
// evaluation stay as they were when the package was bundled in.
const chunkSpecifiers = Object.fromEntries(Object.keys(CHUNKS).map((group) => [group, new Map()]));
const chunkedPackages = {
  name: 'chunked-packages',
  setup(build) {
    build.onResolve({ filter: /^[@a-z]/ }, (args) => {
      const group = groupOf.get(packageName(args.path));
      if (group === undefined) return undefined;
      const kinds = chunkSpecifiers[group].get(args.path) ?? new Set();
      chunkSpecifiers[group].set(args.path, kinds.add(args.kind === 'require-call' ? 'require-call' : 'import-statement'));
      return { path: args.path, namespace: 'dsh-chunk', pluginData: group };
    });
    build.onLoad({ filter: /.*/, namespace: 'dsh-chunk' }, (args) => ({
      contents: `module.exports = __dshChunk(${JSON.stringify(args.pluginData)})[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
  },
};

/**
 * Parts of packages made to load on first use instead of with their package,
 * each the same value when used: prom-client's Pushgateway (which nothing here
 * uses) requires node:http, node:https and node:zlib, about 15 ms for every
 * command that keeps metrics; class-validator's phone-number check (which no
 * argument uses) evaluates libphonenumber's metadata with the first tool call.
 */
const LAZY_PARTS = [
  {
    file: /[\\/]prom-client[\\/]index\.js$/,
    eager: "exports.Pushgateway = require('./lib/pushgateway');",
    lazy: "Object.defineProperty(exports, 'Pushgateway', { enumerable: true, configurable: true, get: () => require('./lib/pushgateway') });",
  },
  {
    file: /[\\/]class-validator[\\/]cjs[\\/]decorator[\\/]string[\\/]IsPhoneNumber\.js$/,
    eager: 'const max_1 = require("libphonenumber-js/max");',
    lazy: 'const max_1 = { get parsePhoneNumber() { return require("libphonenumber-js/max").parsePhoneNumber; } };',
    // The stand-in has only this member: the file must use no other.
    uses: /max_1\.(\w+)/g,
    only: ['parsePhoneNumber'],
  },
];
const lazyParts = {
  name: 'lazy-parts',
  setup(build) {
    for (const { file, eager, lazy, uses, only } of LAZY_PARTS) {
      build.onLoad({ filter: file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        const stale = !text.includes(eager) || (uses !== undefined && [...text.matchAll(uses)].some((match) => !only.includes(match[1])));
        if (stale) throw new Error(`${args.path} changed (\`${eager}\`): update LAZY_PARTS in scripts/bundle-cli.mjs`);
        return { contents: text.replace(eager, lazy), loader: 'js' };
      });
    }
  },
};

const COMMON = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external,
  minify: true,
  // The argument-schema cache is keyed by class names.
  keepNames: true,
  charset: 'ascii',
  // Our CLI modules read files relative to themselves; the bundle sits in their directory.
  define: { 'import.meta.url': '__dshBundleUrl' },
  banner: { js: 'var __dshBundleUrl=require("url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
  write: false,
  metafile: true,
};

// Caches of an earlier bundle would only be refused, and its chunks are rebuilt: remove them.
for (const name of readdirSync(path.dirname(bundle))) {
  if (/^dsh-tools\..*\.(cjs|cache)$/.test(name)) rmSync(path.join(path.dirname(bundle), name));
}
const result = await esbuild.build({
  ...COMMON,
  entryPoints: [path.join(root, 'dist/cli/cli-program.js')],
  outfile: bundle,
  plugins: [esBranch, chunkedPackages],
});
// The chunk's entry requires each package, but a package must resolve to the
// file the start-up bundle's import or require would have taken (an ES build,
// not the CommonJS one a require picks in a dual package), and to one file.
const sameResolution = (entry, specifiers) => ({
  name: 'same-resolution',
  setup(build) {
    build.onResolve({ filter: /^[@a-z]/ }, async (args) => {
      if (args.importer !== entry || args.pluginData === 'inner') return undefined;
      const paths = new Set();
      for (const kind of specifiers.get(args.path)) {
        const resolved = await build.resolve(args.path, { kind, resolveDir: args.resolveDir, pluginData: 'inner' });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        paths.add(resolved.path);
      }
      if (paths.size !== 1) throw new Error(`${args.path} resolves to ${[...paths].join(' and ')} (import and require): it cannot be one chunk`);
      return { path: [...paths][0] };
    });
  },
});
const chunks = {};
for (const [group, specifiers] of Object.entries(chunkSpecifiers)) {
  if (specifiers.size === 0) throw new Error(`nothing imports the ${group} chunk's packages: update CHUNKS in scripts/bundle-cli.mjs`);
  // Each specifier the start-up bundle imports, evaluated when first asked for, as it was in one bundle.
  const exportsOf = [...specifiers.keys()].map((specifier) => `Object.defineProperty(exports, ${JSON.stringify(specifier)}, { enumerable: true, get: () => require(${JSON.stringify(specifier)}) });`).join('\n');
  chunks[group] = await esbuild.build({
    ...COMMON,
    stdin: { contents: exportsOf, resolveDir: root, sourcefile: `dsh-tools.${group}.cjs`, loader: 'js' },
    outfile: path.join(path.dirname(bundle), `dsh-tools.${group}.cjs`),
    plugins: [sameResolution(path.join(root, `dsh-tools.${group}.cjs`), specifiers), lazyParts],
  });
}
// A package in two files would be two instances of it (two registries, two classes): refuse.
const inputsOf = (built) => new Set(Object.keys(built.metafile.inputs).filter((input) => input.includes('node_modules/')));
const seen = new Map([...inputsOf(result)].map((input) => [input, 'the start-up bundle']));
for (const [group, built] of Object.entries(chunks)) {
  for (const input of inputsOf(built)) {
    if (seen.has(input)) throw new Error(`${input} is in both ${seen.get(input)} and the ${group} chunk: update CHUNKS in scripts/bundle-cli.mjs`);
    seen.set(input, `the ${group} chunk`);
  }
}

// `import()` inside a vm.Script needs an experimental callback on Node 20:
// the loader passes `__dshImport`, an import() of its own (same directory).
function importThroughLoader(text) {
  const isExternal = (target) => external.some((name) => target === name || target.startsWith(name.endsWith('/*') ? name.slice(0, -1) : `${name}/`));
  return text.replace(/(?<![\w$.])import\((?="([^"]+)"\)|[A-Za-z_$][\w$]*\))/g, (_match, target) => {
    if (target !== undefined && !isExternal(target)) throw new Error(`the bundle imports ${target} at run time, which is not external`);
    return '__dshImport(';
  });
}

/** Writes one file of the bundle: ASCII, with the id its code caches are tied to on its first line. */
function writeBundleFile(file, text) {
  const code = importThroughLoader(text);
  if (/(?<![\w$.])import\(/.test(code)) throw new Error(`${path.basename(file)} has an import() the loader does not serve`);
  // esbuild leaves non-ASCII characters in regular expressions (validator.js);
  // the loader reads the bundle as latin1 (no UTF-8 decoding), so they become
  // \u escapes, which mean the same character in a regular expression, a
  // string or an identifier alike.
  const ascii = code.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // The id ties the code cache to this exact file (V8 itself compares only the source length).
  const id = createHash('sha256').update(ascii).digest('hex').slice(0, 32);
  writeFileSync(file, `// dsh-tools-bundle ${id}\n${ascii}`, 'latin1');
}

writeBundleFile(bundle, result.outputFiles[0].text);
for (const [group, built] of Object.entries(chunks)) writeBundleFile(path.join(path.dirname(bundle), `dsh-tools.${group}.cjs`), built.outputFiles[0].text);
await recordCodeCache(root);
