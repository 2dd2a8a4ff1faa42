import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, MAIN_JS } from './built-server.js';

/** A real MCP client over Streamable HTTP, sending `token` as a bearer token (none when undefined) and any further `headers`. */
export async function connectClient(
  url: URL,
  token?: string,
  options: { headers?: Record<string, string>; name?: string } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const headers: Record<string, string> = { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...options.headers };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: options.name ?? 'dsh-http-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A fresh temp directory; `cleanup()` removes it. */
export function tempDir(prefix = 'dsh-e2e-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A temp root holding an existing `ws` workspace and a `home` for DSH_HOME; `cleanup()` removes it all. */
export function serverDirs(): { root: string; workspace: string; dshHome: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir();
  const workspace = path.join(dir, 'ws');
  mkdirSync(workspace);
  return { root: dir, workspace, dshHome: path.join(dir, 'home'), cleanup };
}

/** A marker that makes a test's processes findable: `sleep 1000.<marker>`. */
export function uniqueMarker(): string {
  return `${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

/** Environment of a spawned server: the SDK's safe defaults, plus a private DSH_HOME. */
function serverEnv(dshHome: string): Record<string, string> {
  return { ...getDefaultEnvironment(), DSH_HOME: dshHome };
}

/** Collects the session notices a server sends as MCP logging messages. */
class NoticeLog {
  readonly notices: string[] = [];
  private readonly events = new EventEmitter();

  attach(client: Client): void {
    client.setNotificationHandler(LoggingMessageNotificationSchema, (message) => {
      this.notices.push(String(message.params.data));
      this.events.emit('notice');
    });
  }

  /** Resolves with the first notice (seen or future) that contains `text`. */
  waitFor(text: string, timeoutMs = 20_000): Promise<string> {
    const found = () => this.notices.find((notice) => notice.includes(text));
    return new Promise((resolve, reject) => {
      const hit = found();
      if (hit) return resolve(hit);
      const onNotice = () => {
        const now = found();
        if (!now) return;
        clearTimeout(timer);
        this.events.off('notice', onNotice);
        resolve(now);
      };
      const timer = setTimeout(() => {
        this.events.off('notice', onNotice);
        reject(new Error(`no notice containing "${text}" within ${timeoutMs} ms (got: ${JSON.stringify(this.notices)})`));
      }, timeoutMs);
      this.events.on('notice', onNotice);
    });
  }
}

export interface StdioServer {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly pid: number;
  readonly notices: NoticeLog;
  /** Transport/protocol errors the client saw (e.g. a non-JSON line on the server's stdout). */
  readonly errors: Error[];
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Spawns `node dist/cli/main.js serve --workspace <workspace> ...args` behind a real MCP client. */
export async function startStdioServer(options: { workspace: string; dshHome: string; args?: string[] }): Promise<StdioServer> {
  ensureBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS, 'serve', '--workspace', options.workspace, ...(options.args ?? [])],
    env: serverEnv(options.dshHome),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'dsh-e2e', version: '1.0.0' });
  const notices = new NoticeLog();
  notices.attach(client);
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid!,
    notices,
    errors,
    stderr: () => stderr,
    call: (name, args) => callTool(client, name, args),
    close: () => client.close(),
  };
}

export interface HttpServer {
  readonly url: URL;
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  /** The generated token's file, when the server printed one. */
  readonly tokenFile?: string;
  /** The bearer token the client sends (read from `tokenFile`, or given); undefined under --no-auth. */
  readonly token?: string;
  stderr(): string;
  /** A real MCP client; it sends the server's token unless `token` says otherwise (null: no header). */
  connect(token?: string | null): Promise<{ client: Client; transport: StreamableHTTPClientTransport; notices: NoticeLog }>;
}

/**
 * Spawns `serve --http 0 …args` and reads the chosen address (and the
 * generated token's file, if any) from its stderr. `token` is the token
 * the server was given another way (DSH_HTTP_TOKEN or --token-file).
 */
export async function startHttpServer(options: {
  workspace: string;
  dshHome: string;
  args?: string[];
  env?: Record<string, string>;
  token?: string;
}): Promise<HttpServer> {
  ensureBuilt();
  const child = spawn(process.execPath, [MAIN_JS, 'serve', '--http', '0', '--workspace', options.workspace, ...(options.args ?? [])], {
    env: { ...serverEnv(options.dshHome), ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+?:\d+\/mcp)/.exec(stderr);
      // A server on every interface is reached through loopback.
      if (match) resolve(new URL(match[1]!.replace('//0.0.0.0:', '//127.0.0.1:')));
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${stderr}`)));
  });
  const tokenFile = /bearer token written to (\S+)/.exec(stderr)?.[1];
  const token = options.token ?? (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  return {
    url,
    process: child,
    exited,
    ...(tokenFile ? { tokenFile } : {}),
    ...(token ? { token } : {}),
    stderr: () => stderr,
    connect: async (override) => {
      const sent = override === undefined ? token : override;
      const headers: Record<string, string> = sent ? { authorization: `Bearer ${sent}` } : {};
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
      const client = new Client({ name: 'dsh-e2e-http', version: '1.0.0' });
      const notices = new NoticeLog();
      notices.attach(client);
      await client.connect(transport);
      return { client, transport, notices };
    },
  };
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, CallToolResultSchema)) as CallToolResult;
}

/** The single text block of a result. */
export function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const block = result.content[0]!;
  if (block.type !== 'text') throw new Error(`expected a text block, got ${block.type}`);
  return block.text;
}

export { isAlivePid as isAlive, processesWith, waitUntil } from './process-table.js';
