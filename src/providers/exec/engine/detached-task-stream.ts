import { closeSync, fstatSync, openSync, readdirSync, readSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import type { RunCap } from './detached-task.js';

// One output stream of a detached command, as its files hold it (detached-task.ts, CAPPED_COPY):
// the stream's file while it is within the cap, then segments holding its newest bytes.

/** One of the stream's files, open: where its bytes start in the stream and how many it held when opened. */
interface Piece {
  readonly fd: number;
  readonly start: number;
  readonly size: number;
}

/** What a stream holds past an offset. */
interface StreamBytes {
  /** The newest bytes past the offset (at most the asked number; fewer when the sandbox no longer keeps them). */
  readonly bytes: Buffer;
  /** Where `bytes` start in the stream: past the offset when some were not kept or not asked for. */
  readonly from: number;
  /** True while the stream's own file holds all of it (it never went past the cap). */
  readonly complete: boolean;
}

/** The last `maxBytes` of what the stream whose file is `file` holds past `offset`; a missing file holds nothing. */
export function readStreamBytes(file: string, cap: RunCap | undefined, offset: number, maxBytes: number): StreamBytes {
  const pieces: Piece[] = [];
  try {
    if (cap !== undefined) {
      // Newest first: a segment there means the stream's file and every earlier segment were whole when it was made.
      for (const n of segmentNumbers(file).sort((a, b) => b - a)) {
        const piece = openPiece(`${file}.${n}`, cap.bytes + (n - 1) * cap.segment);
        if (piece !== undefined) pieces.unshift(piece);
      }
    }
    const own = openPiece(file, 0);
    if (own !== undefined) pieces.unshift(own);
    return readPieces(
      pieces.filter((piece) => piece.size > 0),
      offset,
      maxBytes,
    );
  } finally {
    for (const piece of pieces) closeSync(piece.fd);
  }
}

function readPieces(pieces: readonly Piece[], offset: number, maxBytes: number): StreamBytes {
  const complete = !pieces.some((piece) => piece.start > 0);
  const last = pieces[pieces.length - 1];
  if (last === undefined || last.start + last.size <= offset) return { bytes: Buffer.alloc(0), from: offset, complete };
  // The newest run of pieces with no gap between them: what came before it is no longer kept.
  let first = pieces.length - 1;
  while (first > 0 && pieces[first - 1]!.start + pieces[first - 1]!.size >= pieces[first]!.start) first--;
  const end = last.start + last.size;
  const from = Math.max(offset, end - maxBytes, pieces[first]!.start);
  const parts: Buffer[] = [];
  for (let i = first; i < pieces.length; i++) {
    const piece = pieces[i]!;
    // A piece ends where the next starts (the sandbox may have written past it).
    const until = Math.min(piece.start + piece.size, pieces[i + 1]?.start ?? end);
    const at = Math.max(from, piece.start);
    if (until <= at) continue;
    const buffer = Buffer.alloc(until - at);
    const read = readSync(piece.fd, buffer, 0, buffer.length, at - piece.start);
    parts.push(buffer.subarray(0, read));
    // A piece that gave less than it held when opened was cut short: what follows would not join.
    if (read < buffer.length) break;
  }
  return { bytes: Buffer.concat(parts), from, complete };
}

/** The stream's segment numbers there now. */
function segmentNumbers(file: string): number[] {
  const prefix = `${path.basename(file)}.`;
  try {
    return readdirSync(path.dirname(file))
      .filter((name) => name.startsWith(prefix) && /^[1-9]\d{0,14}$/.test(name.slice(prefix.length)))
      .map((name) => Number(name.slice(prefix.length)));
  } catch {
    return [];
  }
}

/** The file open, if it is a regular file: never through a link or a FIFO (the directory is writable from the sandbox). */
function openPiece(file: string, start: number): Piece | undefined {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile()) return { fd, start, size: stat.size };
  } catch {
    // Treated as absent.
  }
  closeSync(fd);
  return undefined;
}
