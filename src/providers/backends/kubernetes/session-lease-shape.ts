import os from 'node:os';
import type { V1Lease } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { LABELS } from '../../exec/engine/container-engine.js';
import { newRecordOf } from '../../registry/record-shape.js';
import type { NewSessionRecord, SessionRecord } from '../../registry/session-registry.js';
import { microTime, timeOf } from './lease-time.js';

/** Marks a shared session's Lease (docs/shared-sessions.md#registry); the server-lease reaper leaves these alone. */
export const SHARED_SESSION_LABEL = 'dsh-tools.shared-session';
/** The first 63 hex of the key (a label value holds no more); the whole key is an annotation. */
const KEY_LABEL = 'dsh-tools.session-key';

/** Where each field of the record lives in the Lease's annotations. */
const FIELDS = {
  key: 'dsh-tools.session-key',
  era: 'dsh-tools.era',
  caller: 'dsh-tools.caller',
  sessionId: 'dsh-tools.session-id',
  cwd: 'dsh-tools.cwd',
  client: 'dsh-tools.client',
  idleMs: 'dsh-tools.idle-ms',
  maxLifetimeMs: 'dsh-tools.max-lifetime-ms',
  createdAt: 'dsh-tools.created-at',
} as const;

/** Selects every shared session's Lease. */
export const SESSION_LEASES = `${LABELS.managed}=1,${SHARED_SESSION_LABEL}=1`;

/** The Lease name of a key: 40 hex are 160 bits, and `find` checks the whole key in the annotation. */
export function sessionLeaseName(key: string): string {
  return `dsh-session-${key.slice(0, 40)}`;
}

/** A new record as a Lease: the fields as annotations, the last use as `renewTime`, the idle time (informational) as its duration. */
export function sessionLease(record: NewSessionRecord, createdAt: number): V1Lease {
  const annotations: Record<string, string> = {
    [FIELDS.key]: record.key,
    [FIELDS.era]: record.era,
    [FIELDS.caller]: record.caller,
    [FIELDS.sessionId]: record.sessionId,
    [FIELDS.cwd]: record.cwd,
    [FIELDS.idleMs]: String(record.idleMs),
    [FIELDS.maxLifetimeMs]: String(record.maxLifetimeMs),
    [FIELDS.createdAt]: String(createdAt),
  };
  if (record.client !== undefined) annotations[FIELDS.client] = JSON.stringify(record.client);
  const at = microTime(new Date(createdAt));
  return {
    metadata: {
      name: sessionLeaseName(record.key),
      labels: { [LABELS.managed]: '1', [SHARED_SESSION_LABEL]: '1', [KEY_LABEL]: record.key.slice(0, 63) },
      annotations,
    },
    spec: {
      holderIdentity: `${os.hostname()}/${process.pid}`,
      ...(record.idleMs > 0 ? { leaseDurationSeconds: Math.ceil(record.idleMs / 1000) } : {}),
      acquireTime: at as never,
      renewTime: at as never,
    },
  };
}

/** The record a Lease holds, or undefined when it is no shared session's, not `key`'s (when given), being deleted, or corrupt. */
export function recordOfLease(lease: V1Lease, key?: string): SessionRecord | undefined {
  const meta = lease.metadata;
  const notes = meta?.annotations ?? {};
  if (meta?.labels?.[SHARED_SESSION_LABEL] !== '1' || meta.deletionTimestamp !== undefined) return undefined;
  if (key !== undefined && notes[FIELDS.key] !== key) return undefined;
  let client: unknown;
  try {
    client = notes[FIELDS.client] === undefined ? undefined : JSON.parse(notes[FIELDS.client]);
  } catch {
    return undefined;
  }
  const fields = newRecordOf({
    key: notes[FIELDS.key],
    era: notes[FIELDS.era],
    caller: notes[FIELDS.caller],
    sessionId: notes[FIELDS.sessionId],
    cwd: notes[FIELDS.cwd],
    client,
    idleMs: Number(notes[FIELDS.idleMs]),
    maxLifetimeMs: Number(notes[FIELDS.maxLifetimeMs]),
  });
  const createdAt = Number(notes[FIELDS.createdAt]);
  const lastUseAt = timeOf(lease.spec?.renewTime);
  if (fields === undefined || !Number.isFinite(createdAt) || !Number.isFinite(lastUseAt)) return undefined;
  return { ...fields, createdAt, lastUseAt };
}
