import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ApprovalDecision } from '../../providers/policy/approval/approval-service.js';

/** A question of a call that got its answer: which question (`questionIdentity`) and what was decided. */
export interface GivenAnswer {
  readonly question: string;
  readonly decision: ApprovalDecision;
}

/** What a `requestState` handed out by a replica with shared sessions says (see shared-approval-states.ts). */
export interface ApprovalStateFacts {
  /** The caller the question was asked of (`''` for none). */
  readonly caller: string;
  /** Hex SHA-256 of the call's binding (the tool and its exact arguments, the session handle among them). */
  readonly binding: string;
  /** The question out now (`questionIdentity`) and its `inputRequests` key. */
  readonly question: string;
  readonly key: string;
  /** The answers of the call's earlier rounds, in the order they were asked. */
  readonly answered: readonly GivenAnswer[];
  /** Milliseconds since the epoch: later, the question was withdrawn on the replica that asked. */
  readonly expiresAt: number;
  /** Fresh per question: marked used once, by whichever replica takes the answer first. */
  readonly nonce: string;
}

const VERSION = 's1';
const DECISIONS: ReadonlySet<string> = new Set<ApprovalDecision>(['allowed-once', 'rejected', 'cancelled', 'unavailable', 'timed-out', 'failed', 'undecided', 'needs-form']);

/**
 * Seals the facts into a `requestState` (`s1.<payload>.<mac>`, base64url,
 * HMAC-SHA-256 over the version and payload) and opens one: a state whose
 * MAC does not verify under `key`, or whose payload is not the shape
 * above, opens to nothing. The client reads the payload (its own caller,
 * hashes, the decisions it gave); only a holder of the key can write one.
 */
export class ApprovalStateSeal {
  constructor(private readonly key: Buffer) {}

  seal(facts: ApprovalStateFacts): string {
    const payload = `${VERSION}.${Buffer.from(JSON.stringify(facts), 'utf8').toString('base64url')}`;
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  open(state: unknown): ApprovalStateFacts | undefined {
    if (typeof state !== 'string') return undefined;
    const parts = state.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
    const expected = this.mac(`${parts[0]}.${parts[1]}`);
    const given = Buffer.from(parts[2]!, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      return factsOf(JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')));
    } catch {
      return undefined;
    }
  }

  private mac(text: string): Buffer {
    return createHmac('sha256', this.key).update(text, 'utf8').digest();
  }
}

/** The facts, copied, when `value` has exactly their shape. */
function factsOf(value: unknown): ApprovalStateFacts | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const strings = [v.caller, v.binding, v.question, v.key, v.nonce];
  if (!strings.every((s) => typeof s === 'string') || typeof v.expiresAt !== 'number' || !Array.isArray(v.answered)) return undefined;
  const answered: GivenAnswer[] = [];
  for (const given of v.answered as unknown[]) {
    const g = given as Record<string, unknown> | null;
    if (g === null || typeof g !== 'object' || typeof g.question !== 'string' || typeof g.decision !== 'string' || !DECISIONS.has(g.decision)) return undefined;
    answered.push({ question: g.question, decision: g.decision as ApprovalDecision });
  }
  const [caller, binding, question, key, nonce] = strings as string[];
  return { caller: caller!, binding: binding!, question: question!, key: key!, answered, expiresAt: v.expiresAt, nonce: nonce! };
}
