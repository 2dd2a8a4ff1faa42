import { createHash, randomBytes } from 'node:crypto';
import type { ApprovalRequest } from '../../providers/policy/approval/approval-service.js';
import { approvalFacts } from '../../providers/policy/approval/approval-text.js';
import type { SessionRegistry } from '../../providers/registry/session-registry.js';
import { usedMarker } from '../../providers/registry/used-marker.js';
import type { Logger } from '../../providers/logging/logger.js';
import { messageOf } from '../../core/describe-value.js';
import { ApprovalStateSeal, type ApprovalStateFacts } from './approval-state-seal.js';

/** The label the HMAC key is derived under (`HttpToken.derivedKey`). */
export const APPROVAL_STATE_LABEL = 'dsh-tools approval requestState v1';

/** A marker outlives its state's expiry by this much: clocks of replicas differ a little. */
const MARKER_MARGIN_MS = 60_000;

interface SharedApprovalOptions {
  /** The HMAC key every replica derives alike (from the full set of bearer tokens they share). */
  readonly key: Buffer;
  /** Where used nonces are marked, for every replica (the session registry). */
  readonly registry: SessionRegistry;
  /** How long a question stays answerable (`approval.timeoutMs`). */
  readonly timeoutMs: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

/** A question handed out: its state, and what marks it used. */
export interface IssuedState {
  readonly state: string;
  readonly nonce: string;
  readonly expiresAt: number;
}

/**
 * `requestState`s any replica can take an answer to (`--shared-sessions`,
 * docs/shared-sessions.md#approvals): sealed with a key every replica
 * derives alike, they carry the caller, the call's binding, the question
 * out, the answers of earlier rounds, an expiry and a nonce. A replica that
 * does not hold the waiting call opens one and runs the call again with
 * those answers; the nonce is marked used in the registry first, so one
 * state is answered once across all replicas.
 */
export class SharedApprovalStates {
  private readonly seal: ApprovalStateSeal;
  private readonly now: () => number;

  constructor(private readonly options: SharedApprovalOptions) {
    this.seal = new ApprovalStateSeal(options.key);
    this.now = options.now ?? Date.now;
  }

  issue(facts: Omit<ApprovalStateFacts, 'expiresAt' | 'nonce' | 'binding'> & { readonly binding: string }): IssuedState {
    const nonce = randomBytes(18).toString('base64url');
    const expiresAt = this.now() + this.options.timeoutMs;
    return { state: this.seal.seal({ ...facts, binding: bindingHash(facts.binding), expiresAt, nonce }), nonce, expiresAt };
  }

  /** The facts of `state` when it is sealed with the key, not expired, and names `caller` and this exact call (`binding`). */
  open(state: unknown, caller: string, binding: string): ApprovalStateFacts | undefined {
    const facts = this.seal.open(state);
    if (!facts || facts.caller !== caller || facts.binding !== bindingHash(binding) || facts.expiresAt <= this.now()) return undefined;
    return facts;
  }

  /** Marks `nonce` used on every replica: true for the first use only; a registry that cannot say counts as used (fail closed). */
  async use(issued: Pick<IssuedState, 'nonce' | 'expiresAt'>, caller: string): Promise<boolean> {
    try {
      await this.options.registry.register(usedMarker(issued.nonce, caller, issued.expiresAt - this.now() + MARKER_MARGIN_MS));
      return true;
    } catch (error) {
      this.options.logger?.debug(`mcp: an approval answer was refused: its state is used already, or the registry failed (${messageOf(error)})`);
      return false;
    }
  }

  /** Says why a call runs again from its start on this replica. */
  rerunning(): void {
    this.options.logger?.info('mcp: an approval asked on another replica was answered here: the call runs again from its start');
  }
}

/** What identifies a question: its kind and every shown fact, so a re-run matches only the question that was answered. */
export function questionIdentity(request: ApprovalRequest): string {
  const shown = approvalFacts(request).map((fact) => [fact.name, fact.value]);
  return createHash('sha256').update(JSON.stringify([request.kind, shown]), 'utf8').digest('hex');
}

function bindingHash(binding: string): string {
  return createHash('sha256').update(binding, 'utf8').digest('hex');
}

