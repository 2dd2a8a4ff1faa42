/** `stream` cut at `points` (taken modulo its length + 1, deduplicated, in order): every chunking a property test asks for. */
export function cutAt(stream: string, points: readonly number[]): string[] {
  const sorted = [...new Set(points.map((p) => p % (stream.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const p of sorted) {
    chunks.push(stream.slice(from, p));
    from = p;
  }
  chunks.push(stream.slice(from));
  return chunks;
}
