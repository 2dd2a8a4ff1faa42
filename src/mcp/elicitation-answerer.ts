import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { PluginModule } from '../core/plugin-module.js';
import {
  ApprovalAnswerer,
  type ApprovalDecision,
  type ApprovalRequest,
} from '../providers/approval/approval-service.js';
import { MAX_TIMER_MS } from '../core/timer.js';

/** The SDK needs a request timeout; the approval service's own limit (`approval.timeoutMs`) ends the wait through the signal. */
const ELICITATION_TIMEOUT_MS = MAX_TIMER_MS;

/**
 * Answers escalation approvals by asking the user through MCP elicitation
 * (docs/contract.md §5), on the connection of the session that made the call. A session
 * without a connection, or whose client did not declare elicitation, is
 * passed to the next answerer (`undefined`); with none left the approval
 * service fails closed. A failed or aborted elicitation is `cancelled`:
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
        {
          mode: 'form',
          message:
            request.kind === 'command'
              ? `Allow ${request.tool} to run this command${request.rule ? ` (rule: ${request.rule})` : ''}?\n\n${request.reason}`
              : `Allow ${request.tool} to run with wider permissions, once?\n\n${request.reason}`,
          requestedSchema: { type: 'object', properties: {} },
        },
        // A person answers: the SDK's 60 s request default would cut them off.
        { signal: request.signal, timeout: ELICITATION_TIMEOUT_MS },
      );
      if (result.action === 'accept') return 'allowed-once';
      if (result.action === 'decline') return 'rejected';
      return 'cancelled';
    } catch {
      return 'cancelled';
    }
  }
}

/** Contributes `answerer` to the host's approval answerers. */
export function mcpApprovalModule(answerer: McpElicitationAnswerer): PluginModule {
  return new PluginModule('mcp:approval', ({ bind }) => {
    bind(ApprovalAnswerer).toConstantValue(answerer);
  });
}
