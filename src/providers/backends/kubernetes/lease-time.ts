import type { V1Lease } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

/** The RFC 3339 micro-time a Lease's `renewTime` and `acquireTime` take (six fractional digits: the API server refuses three). */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Milliseconds since the epoch of a time the client gives back as a Date or as text. */
export function timeOf(value: unknown): number {
  return value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
}

/** When a Lease lapses unless renewed: its last renewal (else acquisition, else creation) plus its duration; NaN when it tells no time. */
export function leaseLapsesAt(lease: V1Lease): number {
  const renewed = lease.spec?.renewTime ?? lease.spec?.acquireTime ?? lease.metadata?.creationTimestamp;
  return renewed === undefined ? Number.NaN : timeOf(renewed) + (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
}
