import type { DshHost } from '../../container/dsh-host.js';
import { ApprovalService } from '../../providers/policy/approval/approval-service.js';
import { DEFAULT_APPROVAL_CONFIG } from '../../providers/policy/approval/approval-config.js';
import type { Logger } from '../../providers/logging/logger.js';
import type { SessionRegistry } from '../../providers/registry/session-registry.js';
import type { HttpToken } from '../access/http-auth.js';
import type { ApprovalRoundTrips } from './approval-round-trips.js';
import { APPROVAL_STATE_LABEL, SharedApprovalStates } from './shared-approval-states.js';

/**
 * With shared sessions and tokens, lets `roundTrips` hand out questions any
 * replica takes the answer to: keyed by what every replica's tokens derive
 * alike, used nonces marked in `registry`, answerable as long as the
 * approval service waits. Tokens that derive no key keep the questions this
 * server's (as under `--no-auth`, where nobody could be told apart).
 */
export function shareApprovals(host: DshHost, roundTrips: ApprovalRoundTrips, auth: HttpToken, registry: SessionRegistry, logger?: Logger): void {
  if (!auth.derivedKey) return;
  const service = host.isBound(ApprovalService) ? host.get(ApprovalService) : undefined;
  roundTrips.acrossReplicas(
    new SharedApprovalStates({
      key: auth.derivedKey(APPROVAL_STATE_LABEL),
      registry,
      timeoutMs: service?.timeoutMs ?? DEFAULT_APPROVAL_CONFIG.timeoutMs,
      ...(logger ? { logger } : {}),
    }),
  );
}
