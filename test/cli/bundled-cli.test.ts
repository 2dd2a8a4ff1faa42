// The bundle loader (src/cli/bundled-cli.ts) on small bundles of its own: a
// cache that is absent, another bundle's, damaged or refused by V8 still
// compiles and runs the same code.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { jest } from '@jest/globals';
import { BUNDLE_FILE, cacheFileFor, compileBundle, MODULES_ENV, runBundledCli } from '../../src/cli/bundled-cli.js';
import { encodeCodeCache } from '../../src/cli/code-cache.js';

const ID = '00112233445566778899aabbccddeeff';
// It reports through module.exports, or through a file when run by runBundledCli (jest's global is not the script's).
const SOURCE = `// dsh-tools-bundle ${ID}\nmodule.exports.answer = (function twice(n) { return n * 2; })(21);
if (typeof __dshImport === 'function') require('node:fs').writeFileSync(__dirname + '/ran.json', JSON.stringify({ dir: __dirname, file: __filename }));`;
const NO_REQUIRE = () => undefined;

function ran(): unknown {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'ran.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bundled-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  delete process.env[MODULES_ENV];
});

/** A cache V8 accepts for SOURCE, made the way the build makes one. */
function goodCache(file: string): Buffer {
  const first = compileBundle(file, SOURCE, path.join(dir, 'none.cache'));
  (first.script.runInThisContext() as (...args: unknown[]) => void)({}, NO_REQUIRE, { exports: {} }, file, dir, undefined);
  return encodeCodeCache(ID, first.script.createCachedData());
}

function run(script: vm.Script): unknown {
  const module = { exports: {} as { answer?: number } };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, NO_REQUIRE, module, 'f', dir, undefined);
  return module.exports.answer;
}

describe('compileBundle', () => {
  const file = () => path.join(dir, BUNDLE_FILE);

  it('uses an intact cache of this bundle', () => {
    writeFileSync(`${file()}.prompt.cache`, goodCache(file()));
    const { script, outcome } = compileBundle(file(), SOURCE, `${file()}.prompt.cache`);
    expect(outcome).toBe('used');
    expect(run(script)).toBe(42);
  });

  it('compiles from source without a cache', () => {
    const { script, outcome } = compileBundle(file(), SOURCE, `${file()}.prompt.cache`);
    expect(outcome).toBe('absent');
    expect(run(script)).toBe(42);
  });

  it('compiles from source when the cache is damaged, cut short or another bundle\'s', () => {
    const cache = goodCache(file());
    const damaged = Buffer.from(cache);
    damaged[damaged.length - 100] = damaged[damaged.length - 100]! ^ 0xff;
    const other = Buffer.concat([Buffer.from(cache.toString('latin1', 0, cache.indexOf(0x0a)).replace(ID, 'f'.repeat(32)) + '\n'), cache.subarray(cache.indexOf(0x0a) + 1)]);
    for (const bytes of [damaged, cache.subarray(0, cache.length / 2), other, Buffer.from('garbage')]) {
      writeFileSync(`${file()}.prompt.cache`, bytes);
      const { script, outcome } = compileBundle(file(), SOURCE, `${file()}.prompt.cache`);
      expect(outcome).toBe('invalid');
      expect(run(script)).toBe(42);
    }
  });

  it('compiles from source when V8 refuses the cache (made from other source of the same id)', () => {
    const otherSource = SOURCE.replace('n * 2', 'n + n');
    const first = compileBundle(file(), otherSource, path.join(dir, 'none.cache'));
    writeFileSync(`${file()}.prompt.cache`, encodeCodeCache(ID, first.script.createCachedData()));
    const { script, outcome } = compileBundle(file(), `${SOURCE}  `, `${file()}.prompt.cache`);
    expect(outcome).toBe('rejected');
    expect(run(script)).toBe(42);
  });
});

describe('cacheFileFor', () => {
  it.each([
    [['serve', '--workspace', '/w'], 'serve'],
    [['--shell', 'both', 'call', 'bash', '{}'], 'call'],
    [['prompt'], 'prompt'],
    [['doctor'], 'prompt'],
    [[], 'prompt'],
  ])('%j uses the %s cache', (argv, command) => {
    expect(cacheFileFor('/d/dsh-tools.cjs', argv)).toBe(`/d/dsh-tools.cjs.${command}.cache`);
  });
});

describe('runBundledCli', () => {
  it('runs the bundle beside it as CommonJS with the import() stand-in', () => {
    writeFileSync(path.join(dir, BUNDLE_FILE), SOURCE);
    expect(runBundledCli(dir)).toBe(true);
    expect(ran()).toEqual({ dir, file: path.join(dir, BUNDLE_FILE) });
  });

  it('runs a chunk beside it once, when the bundle first asks for it, with the code cache of the command', () => {
    const chunkSource = `// dsh-tools-bundle ${ID}\nrequire('node:fs').appendFileSync(__dirname + '/chunk-runs', __filename + '\\n'); module.exports.value = 6 * 7;`;
    writeFileSync(path.join(dir, 'dsh-tools.extra.cjs'), chunkSource);
    writeFileSync(
      path.join(dir, BUNDLE_FILE),
      `// dsh-tools-bundle ${ID}\nconst fs = require('node:fs'); fs.writeFileSync(__dirname + '/before-chunk', '');
const first = __dshChunk('extra'); const second = __dshChunk('extra');
let missing; try { __dshChunk('absent'); } catch (error) { missing = error.message; }
fs.writeFileSync(__dirname + '/ran.json', JSON.stringify({ value: first.value, same: first === second, missing }));`,
    );
    // jest's argv names no command: each file reads its prompt cache, this one a damaged one.
    writeFileSync(path.join(dir, 'dsh-tools.extra.cjs.prompt.cache'), 'garbage');
    process.env.DSH_TOOLS_CODE_CACHE_TRACE = '1';
    const traced = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let traces: unknown[];
    try {
      expect(runBundledCli(dir)).toBe(true);
    } finally {
      traces = traced.mock.calls.map(([text]) => text);
      traced.mockRestore();
      delete process.env.DSH_TOOLS_CODE_CACHE_TRACE;
    }
    expect(ran()).toEqual({ value: 42, same: true, missing: `dsh-tools: the bundle chunk dsh-tools.absent.cjs is missing beside ${BUNDLE_FILE}` });
    expect(readFileSync(path.join(dir, 'chunk-runs'), 'utf8')).toBe(`${path.join(dir, 'dsh-tools.extra.cjs')}\n`);
    expect(traces).toEqual(['dsh-tools: code cache absent\n', 'dsh-tools: code cache invalid (dsh-tools.extra.cjs)\n']);
  });

  it('leaves the module tree to the caller when there is no bundle', () => {
    expect(runBundledCli(dir)).toBe(false);
    expect(ran()).toBeUndefined();
  });

  it(`leaves the module tree to the caller when ${MODULES_ENV}=1`, () => {
    writeFileSync(path.join(dir, BUNDLE_FILE), SOURCE);
    process.env[MODULES_ENV] = '1';
    expect(runBundledCli(dir)).toBe(false);
    expect(ran()).toBeUndefined();
  });
});
