// The 2.x SDK client pinned to the 2026-07-28 era, against the built server;
// an approving one answers the questions its `elicitation/create` handler gets
// (what the SDK's input_required driver calls).
import { Client, StreamableHTTPClientTransport, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MAIN_JS, ensureBuilt } from './built-server.js';

export const MODERN = '2026-07-28';

function pinnedClient(): Client {
  return new Client({ name: 'dsh-e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
}

export interface ApprovingClient {
  readonly client: Client;
  /** The messages of the questions the client was asked, in order. */
  readonly asked: string[];
  /** The next answer the client gives (accept by default). */
  answer: ElicitResult;
}

/** A pinned client with `capabilities` that records and answers every question (connect it with overStdio/overHttp). */
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
  await modernStdio(workspace, dshHome, args, approver.client);
}

export async function overHttp(approver: ApprovingClient, url: URL, token: string): Promise<void> {
  await modernHttp(url, token, approver.client);
}

/** `serve --workspace <workspace> …args` on stdio behind a pinned 2.x client. */
export async function modernStdio(workspace: string, dshHome: string, args: string[] = [], client = pinnedClient()): Promise<Client> {
  ensureBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS, 'serve', '--workspace', workspace, ...args],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DSH_HOME: dshHome },
    stderr: 'ignore',
  });
  await client.connect(transport);
  return client;
}

/** A pinned 2.x client over Streamable HTTP sending `token`. */
export async function modernHttp(url: URL, token: string, client = pinnedClient()): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** The text of a result's single text block. */
export function modernText(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text?: string }> }).content;
  return content.map((block) => block.text ?? '').join('');
}

/** The session handle a result names, if any. */
export function handleIn(text: string): string | undefined {
  return /\[session: (dsh-s-[A-Za-z0-9_-]{43}) /.exec(text)?.[1];
}
