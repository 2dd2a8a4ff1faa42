import type { ElicitRequestFormParams, Server } from '@modelcontextprotocol/server';
import { PluginModule } from '../core/plugin-module.js';
import {
  ApprovalAnswerer,
  type ApprovalDecision,
  type ApprovalRequest,
} from '../providers/approval/approval-service.js';
import { MAX_TIMER_MS } from '../core/timer.js';
import { approvalFacts, describeApproval } from '../providers/approval/approval-text.js';

/** The SDK needs a request timeout; the approval service's own limit (`approval.timeoutMs`) ends the wait through the signal. */
const ELICITATION_TIMEOUT_MS = MAX_TIMER_MS;

/**
 * Answers approvals (sandbox escalations and `ask` command rules) by asking
 * the user through MCP elicitation (docs/contract.md §5), on the connection
 * of the session that made the call. The question's facts are separate
 * fields of the requested schema (each a single fixed choice, so a form
 * shows it and nobody can edit it), and the message is their one text form
 * (`describeApproval`): mode first, the command JSON-quoted with its line
 * count, every control and bidi character escaped.
 *
 * A session without a connection, or whose client did not declare
 * elicitation, is passed to the next answerer (`undefined`). Accept runs the
 * command once; decline is `rejected`; a dismissed form (or one withdrawn
 * through the signal) is `cancelled`. A client that fails the request makes
 * this answerer throw, which the approval service reports as `failed`:
 * nothing runs without an explicit accept.
 */
export class McpElicitationAnswerer implements ApprovalAnswerer {
  readonly name = 'mcp-elicitation';
  private readonly servers = new Map<string, Server>();

  /** Routes approvals of `sessionId` to `server`. Returns the unregister function. */
  register(sessionId: string, server: Server): () => void {
    this.servers.set(sessionId, server);
    return () => {
      if (this.servers.get(sessionId) === server) this.servers.delete(sessionId);
    };
  }

  async answer(request: ApprovalRequest): Promise<ApprovalDecision | undefined> {
    const server = request.session ? this.servers.get(request.session.id) : undefined;
    if (!server?.getClientCapabilities()?.elicitation?.form) return undefined;
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

/** Each fact as a read-only field: one choice, pre-selected, titled with its escaped value. */
export function approvalSchema(request: ApprovalRequest): ElicitRequestFormParams['requestedSchema'] {
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {};
  for (const fact of approvalFacts(request)) {
    properties[fact.name] = {
      type: 'string',
      title: fact.title,
      description: fact.description,
      oneOf: [{ const: fact.value, title: fact.value }],
      default: fact.value,
    };
  }
  return { type: 'object', properties };
}

/** Contributes `answerer` to the host's approval answerers. */
export function mcpApprovalModule(answerer: McpElicitationAnswerer): PluginModule {
  return new PluginModule('mcp:approval', ({ bind }) => {
    bind(ApprovalAnswerer).toConstantValue(answerer);
  });
}
