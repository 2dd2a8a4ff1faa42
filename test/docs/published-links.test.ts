// Issue 23 item 9: every relative link the README and docs/ make resolves to a
// file the published package holds (package.json `files`, plus the README and
// package.json npm always ships), and every #anchor to a heading there.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
const PUBLISHED_ROOTS = [...packageJson.files, 'README.md', 'package.json'];

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(full) : entry.name.endsWith('.md') ? [full] : [];
  });
}

/** `[text](target)` outside code spans and fences; external and mail links left out. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

/** GitHub's heading ids: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
function anchorsOf(markdown: string): Set<string> {
  const headings = markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+)$/gm);
  return new Set(
    [...headings].map((match) =>
      match[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

const isPublished = (file: string): boolean => {
  const relative = path.relative(ROOT, file);
  return PUBLISHED_ROOTS.some((root) => relative === root || relative.startsWith(`${root}/`));
};

const sources = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

describe.each(sources.map((file) => [path.relative(ROOT, file), file]))('links in %s', (_name, file) => {
  const markdown = readFileSync(file, 'utf8');

  it('resolve to published files, and anchors to their headings', () => {
    const broken: string[] = [];
    for (const link of relativeLinks(markdown)) {
      const [target, anchor] = link.split('#') as [string, string | undefined];
      const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
      if (!existsSync(resolved)) broken.push(`${link}: no such file`);
      else if (!isPublished(resolved)) broken.push(`${link}: not in the published package (files: ${packageJson.files.join(', ')})`);
      else if (anchor !== undefined && statSync(resolved).isFile() && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${link}: no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

it('the check sees the links (README links to docs/contract.md)', () => {
  expect(relativeLinks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'))).toContain('docs/contract.md');
  expect(relativeLinks('see [x](../src/a.ts) and `[y](z.md)`')).toEqual(['../src/a.ts']);
});
