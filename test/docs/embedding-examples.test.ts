// Issue 37: docs/embedding.md cannot drift from the consumer fixture. Every
// fenced TypeScript example in it is an excerpt (or several, joined by a
// `// …` line) of a file of test/consumers, which scripts/consumer-check.sh
// compiles and runs against the packed tarball. The page names no file the
// package does not ship and speaks the library's words, not the CLI's.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGE = readFileSync(path.join(ROOT, 'docs/embedding.md'), 'utf8');
const FIXTURE = path.join(ROOT, 'test/consumers');
const ELISION = '// …';

/** A line as compared: trimmed, inner runs of blanks as one space. */
const normal = (line: string): string => line.trim().replace(/\s+/g, ' ');

function fixtureFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : fixtureFiles(full);
    return /\.(ts|js|cjs)$/.test(entry.name) ? [full] : [];
  });
}

const SOURCES = fixtureFiles(FIXTURE).map((file) => ({
  file: path.relative(ROOT, file),
  lines: readFileSync(file, 'utf8').split('\n').map(normal).filter((line) => line !== ''),
}));

/** The fenced `ts` blocks of the page, each split at its elision lines into excerpts (blank lines dropped). */
function examples(markdown: string): Array<{ at: number; excerpts: string[][] }> {
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)];
  return blocks.map((block) => {
    const excerpts: string[][] = [[]];
    for (const line of block[1]!.split('\n').map(normal)) {
      if (line === ELISION) excerpts.push([]);
      else if (line !== '') excerpts[excerpts.length - 1]!.push(line);
    }
    return { at: markdown.slice(0, block.index).split('\n').length, excerpts: excerpts.filter((excerpt) => excerpt.length > 0) };
  });
}

/** The fixture file holding `excerpt` as consecutive lines, if one does. */
function holder(excerpt: readonly string[]): string | undefined {
  return SOURCES.find(({ lines }) => lines.some((_, start) => excerpt.every((line, offset) => lines[start + offset] === line)))?.file;
}

const EXAMPLES = examples(PAGE);

describe('docs/embedding.md', () => {
  it('has TypeScript examples', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(EXAMPLES.map((example) => [example.at, example] as const))('the example at line %i is an excerpt of a fixture file', (_at, example) => {
    const missing = example.excerpts.filter((excerpt) => holder(excerpt) === undefined).map((excerpt) => excerpt.join('\n'));
    expect(missing).toEqual([]);
  });

  it('names no file the package does not ship, and no other version than its own', () => {
    const prose = PAGE.replace(/```[\s\S]*?```/g, '');
    expect(prose.match(/(^|[\s(`'"])(test|src|scripts)\/[\w./-]*/g) ?? []).toEqual([]);
    expect(PAGE.match(/\b0\.2\b/g) ?? []).toEqual([]);
  });

  it('says what to do in library words, not with CLI flags', () => {
    expect(PAGE.match(/\bpass --[\w-]+/g) ?? []).toEqual([]);
  });
});

describe('the excerpt check', () => {
  it('finds a real excerpt and misses a changed one', () => {
    const source = SOURCES.find(({ file }) => file.endsWith('composition.ts'))!;
    expect(holder(source.lines.slice(2, 5))).toBe(source.file);
    expect(holder([...source.lines.slice(2, 4), 'not in the file'])).toBeUndefined();
  });
});
