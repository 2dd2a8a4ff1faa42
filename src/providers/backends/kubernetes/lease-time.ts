/** The RFC 3339 micro-time a Lease's `renewTime` and `acquireTime` take (six fractional digits: the API server refuses three). */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Milliseconds since the epoch of a time the client gives back as a Date or as text. */
export function timeOf(value: unknown): number {
  return value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
}
