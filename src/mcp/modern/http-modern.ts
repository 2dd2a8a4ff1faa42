import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../providers/logging/logger.js';
import { modernServer, type ModernServerDeps } from './modern-server.js';
import { toWebRequest, writeWebResponse } from '../transport/node-web.js';

/**
 * The 2026-07-28 era over HTTP: every request stands alone (no session id),
 * served by a fresh `Server` from `modernServer` for the caller the token
 * names. The caller rides in the SDK's `authInfo` (pass-through) into the
 * factory, so a session handle stays fenced to the token that made it.
 */
export class ModernHttp {
  private readonly handler: McpHttpHandler;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(deps: ModernServerDeps, logger?: Logger) {
    this.handler = createMcpHandler((ctx) => modernServer(deps, ctx.authInfo?.clientId, peerIn(ctx.authInfo?.extra)), {
      // 2025-era requests never get here: the server routes them to their sessions first.
      legacy: 'reject',
      onerror: (error) => logger?.debug(`mcp http (2026-07-28): ${error.message}`),
    });
  }

  /** Serves one request whose body was read and checked already. */
  async serve(req: IncomingMessage, res: ServerResponse, body: unknown, caller: string, peer?: string): Promise<void> {
    this.inFlight++;
    try {
      const request = toWebRequest(req, res, JSON.stringify(body));
      const response = await this.handler.fetch(request, { parsedBody: body, authInfo: { token: '', clientId: caller, scopes: [], ...(peer !== undefined ? { extra: { peer } } : {}) } });
      await writeWebResponse(response, res);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Resolves once no 2026-07-28 request is being answered. */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): Promise<void> {
    return this.handler.close();
  }
}

/** The client's address the server put into the request's auth info (audit records carry it). */
function peerIn(extra: Record<string, unknown> | undefined): string | undefined {
  return typeof extra?.peer === 'string' ? extra.peer : undefined;
}
