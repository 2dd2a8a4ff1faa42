import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The header that signs every webhook message, in both directions: the
 * request this server POSTs, the receiver's answer in the response body, and
 * a later callback (docs/security/approvals.md, "The approval webhook").
 * Value: `t=<unix seconds>,v1=<hex HMAC-SHA256>`; the signed bytes are the
 * decimal `t`, one `.`, then the body exactly as sent.
 */
export const SIGNATURE_HEADER = 'x-dsh-signature';

/** A signature whose time is further than this from the verifier's clock is refused (replay window). */
const SIGNATURE_TOLERANCE_S = 300;

function signatureOf(secret: string, seconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${seconds}.`).update(body).digest('hex');
}

/** The header value for `body` signed at `nowMs`. */
export function signBody(secret: string, body: string, nowMs: number): string {
  const seconds = Math.floor(nowMs / 1000);
  return `t=${seconds},v1=${signatureOf(secret, seconds, body)}`;
}

/**
 * Why `header` does not sign `body` with `secret` at `nowMs` (missing,
 * malformed, outside the replay window, or not this secret's), or undefined
 * when it does. The comparison is constant-time.
 */
export function signatureProblem(secret: string, header: string | string[] | undefined, body: string, nowMs: number): string | undefined {
  if (header === undefined) return `missing ${SIGNATURE_HEADER} header`;
  if (Array.isArray(header)) return `more than one ${SIGNATURE_HEADER} header`;
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header.trim());
  if (!match) return `malformed ${SIGNATURE_HEADER} header (expected t=<unix seconds>,v1=<64 hex>)`;
  const seconds = Number(match[1]);
  if (Math.abs(nowMs / 1000 - seconds) > SIGNATURE_TOLERANCE_S) return `signature time ${seconds} is more than ${SIGNATURE_TOLERANCE_S} s from this server's clock`;
  const expected = Buffer.from(signatureOf(secret, seconds, body), 'hex');
  const given = Buffer.from(match[2]!, 'hex');
  return timingSafeEqual(expected, given) ? undefined : 'bad signature';
}
