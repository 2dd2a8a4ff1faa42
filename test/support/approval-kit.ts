// Shared by the approval attack suites: a real MCP client, in process, that
// records every elicitation it is shown (message and requested schema) and
// gives one fixed answer.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { McpElicitationAnswerer } from '../../src/mcp/approvals/elicitation-answerer.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { connectInProcess } from './in-process-client.js';

/** Characters a terminal acts on or reorders: C0 but `\n`, DEL, C1, bidi marks, embeddings and isolates, U+2028/2029. */
export const RAW_CONTROL = /(?!\n)[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\u061c]/u;

export interface Elicited {
  readonly message: string;
  readonly requestedSchema: ElicitRequestFormParams['requestedSchema'];
}

export interface PromptClient {
  readonly connection: McpConnection;
  readonly client: Client;
  readonly shown: Elicited[];
  close(): Promise<void>;
}

/**
 * A real MCP client on `host` that supports form elicitation and answers every
 * question with `answer` (a function may compute it from what was shown, or throw: the client then fails the request).
 */
export async function promptClient(
  host: DshHost,
  answerer: McpElicitationAnswerer,
  cwd: string,
  answer: ElicitResult | ((shown: Elicited) => ElicitResult),
): Promise<PromptClient> {
  const shown: Elicited[] = [];
  const { connection, client } = await connectInProcess(host, {
    cwd,
    approvals: answerer,
    name: 'approval-attacks',
    capabilities: { elicitation: { form: {} } },
    answer: (request) => {
      const params = request as ElicitRequestFormParams;
      const question = { message: params.message, requestedSchema: params.requestedSchema };
      shown.push(question);
      return typeof answer === 'function' ? answer(question) : answer;
    },
  });
  return { connection, client, shown, close: () => connection.close() };
}

/** The text of a tool result's blocks. */
export function resultText(result: object): string {
  return ((result as { content?: Array<{ text: string }> }).content ?? []).map((block) => block.text).join('');
}

/** A fresh workspace (real path) and a marker file in it that an attack must never create. */
export function markerWorkspace(prefix: string): { dir: string; marker: string; ran: () => boolean; remove: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const marker = path.join(dir, 'ran');
  return { dir, marker, ran: () => existsSync(marker), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The single fixed choice of a requested-schema field (what the form shows and returns). */
export function fieldValue(schema: Elicited['requestedSchema'], name: string): string | undefined {
  const field = schema.properties[name] as { oneOf?: Array<{ const: string }> } | undefined;
  return field?.oneOf?.[0]?.const;
}
