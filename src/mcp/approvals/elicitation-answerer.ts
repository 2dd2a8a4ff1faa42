import type { Server } from '@modelcontextprotocol/server';
import { PluginModule } from '../../core/plugin-module.js';
import {
  APPROVAL_KINDS,
  ApprovalAnswerer,
  type ApprovalDecision,
  type ApprovalRequest,
} from '../../providers/policy/approval/approval-service.js';
import { MAX_TIMER_MS } from '../../core/timer.js';
import { describeApproval } from '../../providers/policy/approval/approval-text.js';
import { approvalSchema, formSupportOf } from './approval-answers.js';
import { ApprovalRoundTrips } from './approval-round-trips.js';

export { approvalSchema } from './approval-answers.js';

/** The SDK needs a request timeout; the approval service's own limit (`approval.timeoutMs`) ends the wait through the signal. */
const ELICITATION_TIMEOUT_MS = MAX_TIMER_MS;

/**
 * Answers approvals (sandbox escalations and `ask` command rules) by asking
 * the user through MCP elicitation (docs/contract.md §5), in both eras: a
 * 2025-era session's question is an `elicitation/create` request on its
 * connection; a 2026-07-28 call's is an `input_required` round trip
 * (`roundTrips`, which the modern server routes its calls through). The
 * question's facts are separate fields of the requested schema (each a
 * single fixed choice, so a form shows it and nobody can edit it), and the
 * message is their one text form (`describeApproval`): mode first, the
 * command JSON-quoted with its line count, every control and bidi character
 * escaped.
 *
 * A session without a connection, or whose client did not declare
 * elicitation, is passed to the next answerer (`undefined`); a client that
 * declared URL-mode elicitation only gets `needs-form` (an approval shows
 * its facts in the client's own form). Accept runs the command once; decline
 * is `rejected`; a dismissed form (or one withdrawn through the signal) is
 * `cancelled`. A client that fails the request (or, in the 2026-07-28 era,
 * answers something that is not a plain answer to this question) makes the
 * approval `failed`: nothing runs without an explicit accept.
 */
export class McpElicitationAnswerer implements ApprovalAnswerer {
  readonly name = 'mcp-elicitation';
  /** The person asks about escalations and `ask` rules alike. */
  readonly kinds = APPROVAL_KINDS;
  /** 2026-07-28 calls: give it to the modern server, which routes each `tools/call` through it. */
  readonly roundTrips = new ApprovalRoundTrips();
  private readonly servers = new Map<string, Server>();

  /** Routes approvals of `sessionId` to `server`. Returns the unregister function. */
  register(sessionId: string, server: Server): () => void {
    this.servers.set(sessionId, server);
    return () => {
      if (this.servers.get(sessionId) === server) this.servers.delete(sessionId);
    };
  }

  async answer(request: ApprovalRequest): Promise<ApprovalDecision | undefined> {
    const modern = await this.roundTrips.answer(request);
    if (modern !== undefined) return modern;
    const server = request.session ? this.servers.get(request.session.id) : undefined;
    const forms = formSupportOf(server?.getClientCapabilities());
    if (!server || forms === 'none') return undefined;
    if (forms === 'url-only') return 'needs-form';
    try {
      const result = await server.elicitInput(
        { mode: 'form', message: describeApproval(request), requestedSchema: approvalSchema(request) },
        // A person answers: the SDK's 60 s request default would cut them off.
        { signal: request.signal, timeout: ELICITATION_TIMEOUT_MS },
      );
      if (result.action === 'accept') return 'allowed-once';
      if (result.action === 'decline') return 'rejected';
      return 'cancelled';
    } catch (error) {
      // Withdrawn by the service (its timeout) or the caller: the service tells which.
      if (request.signal?.aborted) return 'cancelled';
      throw error;
    }
  }
}

/** Contributes `answerer` to the host's approval answerers. */
export function mcpApprovalModule(answerer: McpElicitationAnswerer): PluginModule {
  return new PluginModule('mcp:approval', ({ bind }) => {
    bind(ApprovalAnswerer).toConstantValue(answerer);
  });
}
