import type { FileHandle } from 'node:fs/promises';

/*
 * A spill file may hold up to 64 MiB; read whole into one answer it costs
 * the server several times that while the answer is built and written, per
 * read in flight. So `resources/read` answers at most one page: a file
 * larger than `SPILL_PAGE_BYTES` is read as `<uri>?page=1`, `?page=2`, …,
 * each page's content naming the pages in `_meta` (docs/contract.md §9).
 */

/** The most one `resources/read` answer carries of a spill file. */
export const SPILL_PAGE_BYTES = 1024 * 1024;

/** Where pages are named in a content's `_meta`. */
export const PAGE_META_KEY = 'dsh-tools/page';

/** A UTF-8 character is at most this long: a page boundary moves forward at most this far less one. */
const MAX_CHAR_BYTES = 4;

interface PageRequest {
  /** The URI as offered (no page suffix). */
  readonly base: string;
  /** 1-based; undefined when the URI named no page. */
  readonly page?: number;
}

const PAGE_SUFFIX = /\?page=([1-9]\d{0,5})$/;

/** Splits `uri` into the offered URI and a page number; anything else after `?` stays part of the URI (and is not offered). */
export function pageRequestOf(uri: string): PageRequest {
  const match = PAGE_SUFFIX.exec(uri);
  return match ? { base: uri.slice(0, match.index), page: Number(match[1]) } : { base: uri };
}

interface SpillPage {
  readonly text: string;
  /** Set when the file has more than one page. */
  readonly meta?: { readonly page: number; readonly pages: number; readonly next?: string };
}

/**
 * Page `page` of the open file of `size` bytes (whole, when it fits one page
 * and none was asked for). Boundaries never split a UTF-8 character: each
 * moves forward past continuation bytes. `undefined` for a page past the end.
 */
export async function readPage(handle: FileHandle, size: number, request: PageRequest, pageBytes = SPILL_PAGE_BYTES): Promise<SpillPage | undefined> {
  const pages = Math.max(1, Math.ceil(size / pageBytes));
  const page = request.page ?? 1;
  if (page > pages) return undefined;
  const start = await boundary(handle, (page - 1) * pageBytes, size);
  const end = page === pages ? size : await boundary(handle, page * pageBytes, size);
  const buffer = Buffer.alloc(end - start);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  const text = buffer.subarray(0, filled).toString('utf8');
  if (pages === 1) return { text };
  const next = page < pages ? `${request.base}?page=${page + 1}` : undefined;
  return { text, meta: { page, pages, ...(next ? { next } : {}) } };
}

/** The first offset at or after `at` that starts a UTF-8 character. */
async function boundary(handle: FileHandle, at: number, size: number): Promise<number> {
  if (at <= 0 || at >= size) return Math.min(Math.max(at, 0), size);
  const probe = Buffer.alloc(MAX_CHAR_BYTES - 1);
  const { bytesRead } = await handle.read(probe, 0, probe.length, at);
  let offset = 0;
  while (offset < bytesRead && (probe[offset]! & 0xc0) === 0x80) offset++;
  return at + offset;
}
