import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallGate } from './call-gate.js';
import { PAGE_META_KEY, pageRequestOf, readPage, SPILL_PAGE_BYTES } from './spill-pages.js';
import { ResourceNotFoundError, type ReadResourceResult, type Resource, type ResourceLink, type Server } from '@modelcontextprotocol/server';

/*
 * A truncated result names its spill file (`full output: <path>`); clients
 * that read resources get the same file as a `resource_link`. Only the
 * session a link was handed to can read it: each connection keeps the links
 * its own results carried, and `resources/read` answers those and nothing
 * else. No URI is ever turned into a path, so a guessed URI, another
 * session's spill or any other file is refused before the disk is touched.
 */

/** Links kept per session; past this the oldest are forgotten (retention has usually deleted their files by then). */
const MAX_OFFERED = 1024;

const MIME_TYPE = 'text/plain';
const DESCRIPTION = 'The complete output stream on the server; the result text shows only part of it.';

/** "Resource not found" as the 2.x SDK sends it on every era: -32602 with `data: { uri }` and this message. */
function resourceError(uri: string, message: string): Error {
  return new ResourceNotFoundError(uri, message);
}

/** The spill files one session's results offered, readable by that session only. */
export class SessionSpills {
  private readonly offered = new Map<string, string>();

  /** Registers `file` for this session and returns the content block that links it. */
  offer(file: string): ResourceLink {
    const uri = pathToFileURL(file).href;
    this.offered.delete(uri);
    this.offered.set(uri, file);
    while (this.offered.size > MAX_OFFERED) this.offered.delete(this.offered.keys().next().value!);
    return { type: 'resource_link', uri, name: path.basename(file), mimeType: MIME_TYPE, description: DESCRIPTION };
  }

  /** The offered files that still exist, oldest first. */
  async list(): Promise<Resource[]> {
    const resources: Resource[] = [];
    for (const [uri, file] of this.offered) {
      const stat = await fs.lstat(file).catch(() => undefined);
      if (stat?.isFile()) resources.push({ uri, name: path.basename(file), mimeType: MIME_TYPE, description: DESCRIPTION, size: stat.size });
    }
    return resources;
  }

  /** The file behind a URI this session was offered; a clear error for anything else. */
  async read(uri: string): Promise<ReadResourceResult> {
    const request = pageRequestOf(uri);
    const file = this.offered.get(request.base);
    if (file === undefined) throw resourceError(uri, `unknown resource ${uri}: this session was not offered it (only its own spill files can be read)`);
    let handle;
    try {
      // O_NOFOLLOW: a spill file swapped for a symlink is refused, never followed.
      handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw resourceError(uri, `spill file ${file} no longer exists (removed with its session or by spill retention)`);
      throw resourceError(uri, `spill file ${file} cannot be read (${code ?? String(error)})`);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw resourceError(uri, `spill file ${file} is not a regular file`);
      const page = await readPage(handle, stat.size, request);
      if (!page) throw resourceError(uri, `spill file ${file} has no page ${request.page} (it has ${Math.max(1, Math.ceil(stat.size / SPILL_PAGE_BYTES))})`);
      return { contents: [{ uri, mimeType: MIME_TYPE, text: page.text, ...(page.meta ? { _meta: { [PAGE_META_KEY]: page.meta } } : {}) }] };
    } finally {
      await handle.close();
    }
  }
}

/**
 * Serves `resources/list` and `resources/read` on `server` from a new
 * `SessionSpills`, which the connection hands to `toCallToolResult`. A read
 * takes a place in `gate` (`--max-concurrent-calls`) like a tool call. The
 * server must declare `SPILL_RESOURCE_CAPABILITIES` (`spill-capabilities.ts`, in `serverCapabilities()`).
 */
export function registerSpillResources(server: Server, gate?: CallGate): SessionSpills {
  const spills = new SessionSpills();
  server.setRequestHandler('resources/list', async () => ({ resources: await spills.list() }));
  server.setRequestHandler('resources/read', (request, ctx) => gated(gate, ctx.mcpReq.signal, () => spills.read(request.params.uri)));
  return spills;
}

/** Runs `read` holding a place in `gate` (when there is one); a refusal is the request's error. */
async function gated<T>(gate: CallGate | undefined, signal: AbortSignal, read: () => Promise<T>): Promise<T> {
  if (!gate) return read();
  const admitted = await gate.acquire(signal);
  if (typeof admitted !== 'function') throw new Error(admitted.refused);
  try {
    return await read();
  } finally {
    admitted();
  }
}
