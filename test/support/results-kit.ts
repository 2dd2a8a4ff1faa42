import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { connectInProcess } from './in-process-client.js';

/** One MCP session on `host` behind a real 1.x SDK client (in-memory transport), with the notices it was sent. */
export interface ResultsSession {
  readonly client: Client;
  readonly connection: McpConnection;
  /** Resolves with the first logged notice that contains `text`. */
  notice(text: string): Promise<string>;
  bash(command: string, extra?: Record<string, unknown>): Promise<CallToolResult>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function openSession(host: DshHost, cwd: string): Promise<ResultsSession> {
  const logged: string[] = [];
  const waiters: Array<() => void> = [];
  const { connection, client } = await connectInProcess(host, {
    cwd,
    name: 'results',
    prepare: (client) =>
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        logged.push(String(notification.params.data));
        for (const wake of waiters.splice(0)) wake();
      }),
  });
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    connection,
    notice: async (text) => {
      for (;;) {
        const found = logged.find((line) => line.includes(text));
        if (found !== undefined) return found;
        await new Promise<void>((wake) => waiters.push(wake));
      }
    },
    bash: (command, extra = {}) => call('bash', { command, description: 'Run a test command', ...extra }),
    call,
    close: () => connection.close(),
  };
}

/** The text blocks of a result, joined: what a text-reading client hands the model. */
export function textBlocks(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
