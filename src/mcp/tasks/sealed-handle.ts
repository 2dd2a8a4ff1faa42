import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/*
 * A 2026-07-28 task's record (docs/shared-sessions.md#mcp-tasks) must lead
 * another replica to the task's session, whose handle is a credential the
 * record may not hold. It holds the handle sealed with a key derived from
 * the task id (AES-256-GCM): only a request that names the task id opens
 * it — one that already reads the task — and the record's name (another
 * hash of the id) does not give the key.
 */

const KEY_CONTEXT = 'dsh-tools mcp task handle\0';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(taskId: string): Buffer {
  return createHash('sha256').update(KEY_CONTEXT).update(taskId).digest();
}

/** `handle` sealed for `taskId`: base64url of the IV, the tag and the ciphertext. */
export function sealHandle(taskId: string, handle: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(taskId), iv);
  const sealed = Buffer.concat([cipher.update(handle, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The handle sealed for `taskId`; undefined for anything else (another id's seal, a damaged one). */
export function openHandle(taskId: string, sealed: unknown): string | undefined {
  if (typeof sealed !== 'string') return undefined;
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(taskId), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
