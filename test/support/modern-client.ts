// The 2.x SDK client pinned to the 2026-07-28 era, against the built server.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MAIN_JS, ensureBuilt } from './built-server.js';

export const MODERN = '2026-07-28';

function pinnedClient(): Client {
  return new Client({ name: 'dsh-e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
}

/** `serve --workspace <workspace> …args` on stdio behind a pinned 2.x client. */
export async function modernStdio(workspace: string, dshHome: string, args: string[] = []): Promise<Client> {
  ensureBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS, 'serve', '--workspace', workspace, ...args],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DSH_HOME: dshHome },
    stderr: 'ignore',
  });
  const client = pinnedClient();
  await client.connect(transport);
  return client;
}

/** A pinned 2.x client over Streamable HTTP sending `token`. */
export async function modernHttp(url: URL, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = pinnedClient();
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
