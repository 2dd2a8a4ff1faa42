import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pageRequestOf, readPage } from '../../../src/mcp/calls/spill-pages.js';

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-spill-pages-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function pagesOf(text: string, pageBytes: number): Promise<Array<{ text: string; meta?: unknown }>> {
  const file = path.join(dir, `f${Math.random()}`);
  writeFileSync(file, text);
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const pages = [];
    for (let page = 1; ; page++) {
      const read = await readPage(handle, size, { base: 'file:///f', page }, pageBytes);
      if (!read) return pages;
      pages.push(read);
    }
  } finally {
    await handle.close();
  }
}

test('a file within one page is read whole, without page metadata', async () => {
  expect(await pagesOf('hello\n', 16)).toEqual([{ text: 'hello\n' }]);
});

test('pages never split a UTF-8 character and join back to the file; each names the next', async () => {
  const text = 'ab€ü😀'.repeat(40);
  const pages = await pagesOf(text, 7);
  expect(pages.map((p) => p.text).join('')).toBe(text);
  expect(pages.every((p) => !p.text.includes('\uFFFD'))).toBe(true);
  expect(pages[0]!.meta).toEqual({ page: 1, pages: pages.length, next: 'file:///f?page=2' });
  expect(pages.at(-1)!.meta).toEqual({ page: pages.length, pages: pages.length });
});

test('only "?page=<n>" is a page suffix; anything else stays part of the URI', () => {
  expect(pageRequestOf('file:///a?page=3')).toEqual({ base: 'file:///a', page: 3 });
  for (const uri of ['file:///a?page=0', 'file:///a?page=-1', 'file:///a?x=1', 'file:///a?page=1&x', 'file:///a?page=99999999']) {
    expect(pageRequestOf(uri)).toEqual({ base: uri });
  }
});
