import { createHash } from 'node:crypto';

// The V8 code cache of the bundled CLI (see docs/performance.md, start-up).
// V8 checks a cache against its own version, its flags and the source's
// LENGTH only, and a release build does not checksum the payload: a cache of
// another build of the same length, or a damaged one, would run wrong code or
// crash. So the file carries its own header: the build it belongs to and a
// digest of the payload, checked before V8 ever sees the bytes.

const MAGIC = 'dsh-tools-code-cache/1';
/** The first line of a bundle: `// dsh-tools-bundle <build id>`. */
const BUNDLE_MARK = '// dsh-tools-bundle ';

/** The build id a bundle's first line names, or undefined when it names none. */
export function bundleIdOf(bundleText: string): string | undefined {
  if (!bundleText.startsWith(BUNDLE_MARK)) return undefined;
  const end = bundleText.indexOf('\n');
  const id = bundleText.slice(BUNDLE_MARK.length, end < 0 ? undefined : end).trim();
  return /^[0-9a-f]{16,128}$/.test(id) ? id : undefined;
}

function digest(payload: Uint8Array): string {
  return createHash('sha256').update(payload).digest('hex');
}

/** The cache file's bytes: a one-line header, then V8's cached data. */
export function encodeCodeCache(bundleId: string, cachedData: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${MAGIC} ${bundleId} ${digest(cachedData)}\n`, 'latin1'), cachedData]);
}

/**
 * V8's cached data from a cache file when it belongs to this bundle and is
 * intact; undefined otherwise (the script then compiles from source).
 */
export function decodeCodeCache(bundleId: string, file: Buffer): Buffer | undefined {
  const end = file.indexOf(0x0a);
  if (end < 0 || end > 300) return undefined;
  const [magic, id, sum, ...rest] = file.toString('latin1', 0, end).split(' ');
  if (magic !== MAGIC || id !== bundleId || sum === undefined || rest.length > 0) return undefined;
  const payload = file.subarray(end + 1);
  if (payload.length === 0 || digest(payload) !== sum) return undefined;
  return payload;
}
