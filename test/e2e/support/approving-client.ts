// A pinned 2026-07-28 client (2.x SDK) that answers approvals: its
// `elicitation/create` handler is what the SDK's input_required driver calls.
import { Client, StreamableHTTPClientTransport, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MAIN_JS, ensureBuilt } from '../../support/built-server.js';
import { MODERN } from '../../support/modern-client.js';

export interface ApprovingClient {
  readonly client: Client;
  /** The messages of the questions the client was asked, in order. */
  readonly asked: string[];
  /** The next answer the client gives (accept by default). */
  answer: ElicitResult;
}

export function approvingClient(capabilities: Record<string, unknown> = { elicitation: { form: {} } }): ApprovingClient {
  const client = new Client({ name: 'dsh-e2e-approver', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
  const state: ApprovingClient = { client, asked: [], answer: { action: 'accept', content: {} } };
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request: ElicitRequest) => {
      state.asked.push(String((request.params as { message?: string }).message));
      return state.answer;
    });
  }
  return state;
}

export async function overStdio(approver: ApprovingClient, workspace: string, dshHome: string, args: string[]): Promise<void> {
  ensureBuilt();
  await approver.client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MAIN_JS, 'serve', '--workspace', workspace, ...args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DSH_HOME: dshHome },
      stderr: 'ignore',
    }),
  );
}

export async function overHttp(approver: ApprovingClient, url: URL, token: string): Promise<void> {
  await approver.client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
}
