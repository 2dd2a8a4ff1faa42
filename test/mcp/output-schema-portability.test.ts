// Issue 22 item 11: `type: ["integer","null"]` draws portability warnings
// (Inspector --strict). Every listed schema of every composition uses one
// type per node, no null type, and only required keys it declares; the
// values sent satisfy that because null fields are left out.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { structuredSchema, toStructuredContent } from '../../src/mcp/calls/call-result.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectInProcess } from '../support/in-process-client.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-schema-port-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every place in `schema` a strict client would flag, as JSON pointers with the reason. */
function portabilityProblems(schema: unknown, at = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (Array.isArray(node.type)) problems.push(`${at}/type is an array (${JSON.stringify(node.type)})`);
  if (node.type === 'null') problems.push(`${at}/type is "null"`);
  if ('nullable' in node) problems.push(`${at}/nullable`);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    for (const branch of (node[keyword] as unknown[] | undefined) ?? []) {
      if ((branch as { type?: unknown }).type === 'null') problems.push(`${at}/${keyword} has a null branch`);
    }
  }
  if (Array.isArray(node.required)) {
    const declared = Object.keys((node.properties as object | undefined) ?? {});
    for (const key of node.required as string[]) if (!declared.includes(key)) problems.push(`${at}/required names undeclared "${key}"`);
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === 'const' || key === 'enum' || key === 'default') continue;
    if (Array.isArray(child)) child.forEach((item, index) => problems.push(...portabilityProblems(item, `${at}/${key}/${index}`)));
    else problems.push(...portabilityProblems(child, `${at}/${key}`));
  }
  return problems;
}

async function listedTools(shell: 'oneshot' | 'persistent' | 'both'): Promise<Tool[]> {
  const host = await createHost(...localEnvironment({ workspace: dir, shell }));
  let connection: McpConnection | undefined;
  try {
    const linked = await connectInProcess(host, { cwd: dir, name: 'schema-portability' });
    connection = linked.connection;
    return (await linked.client.listTools()).tools;
  } finally {
    await connection?.close();
    await host.dispose();
  }
}

test.each(['oneshot', 'persistent', 'both'] as const)('every output schema listed by the %s composition is portable', async (shell) => {
  const tools = await listedTools(shell);
  expect(tools.length).toBeGreaterThanOrEqual(shell === 'persistent' ? 1 : 4);
  for (const tool of tools) {
    expect(tool.outputSchema).toBeDefined();
    expect({ tool: tool.name, problems: portabilityProblems(tool.outputSchema) }).toEqual({ tool: tool.name, problems: [] });
    expect(tool.outputSchema!.required).toContain('text');
  }
});

test('the checker flags what Inspector --strict warned about (a null union), and values drop their null fields', () => {
  expect(portabilityProblems({ type: 'object', properties: { exitCode: { type: ['integer', 'null'] } } })).toEqual([
    '/properties/exitCode/type is an array (["integer","null"])',
  ]);
  expect(toStructuredContent({ kind: 'foreground', exitCode: null, signal: 'SIGKILL', outcome: { exitCode: null }, list: [null] })).toEqual({
    kind: 'foreground',
    signal: 'SIGKILL',
    outcome: {},
    list: [null],
  });
});

test("a plugin's schema is listed as its structured content is sent: output keys out, text required", () => {
  const listed = structuredSchema({ type: 'object', properties: { output: { type: 'string' }, n: { type: 'integer' } }, required: ['output', 'n'] });
  expect(listed).toEqual({ type: 'object', properties: { n: { type: 'integer' }, text: expect.objectContaining({ type: 'string' }) }, required: ['n', 'text'] });
});
