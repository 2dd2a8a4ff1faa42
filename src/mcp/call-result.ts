import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/server';
import type { ToolDescriptor } from '../container/prompt-assembler.js';
import type { ToolResult } from '../core/tool-contract.js';

/**
 * A host tool as MCP lists it: name, title, description, schemas and
 * annotations (the title is repeated there for clients that read it from
 * the annotations). MCP requires both schemas' `type` to be `'object'`; the
 * host's are already, so this only guards a hand-written one.
 */
export function toMcpTool(tool: ToolDescriptor): McpTool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: { ...tool.inputSchema, type: 'object' } as McpTool['inputSchema'],
    ...(tool.outputSchema !== undefined ? { outputSchema: { ...tool.outputSchema, type: 'object' } as McpTool['outputSchema'] } : {}),
    ...(tool.annotations !== undefined || tool.title !== undefined
      ? { annotations: { ...(tool.title !== undefined ? { title: tool.title } : {}), ...tool.annotations } }
      : {}),
  };
}

/**
 * A host result as an MCP `tools/call` result: the exact model-visible text,
 * `isError`, and the typed value as `structuredContent`. Pending session
 * notices follow the text after exactly one blank line (one per line), so the
 * model reads them in the same turn as the result.
 */
export function toCallToolResult(result: ToolResult, notices: readonly string[] = []): CallToolResult {
  const content = result.content.map((block) => ({ type: 'text' as const, text: block.text }));
  if (notices.length > 0) {
    const tail = notices.join('\n');
    const last = content[content.length - 1];
    if (last) last.text = `${last.text}${last.text.endsWith('\n') ? '\n' : '\n\n'}${tail}`;
    else content.push({ type: 'text', text: tail });
  }
  const structured = toStructuredContent(result.value);
  return {
    content,
    ...(result.isError ? { isError: true } : {}),
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/**
 * MCP's `structuredContent` must be a JSON object: plain objects go as they
 * are (after a JSON round trip, so nothing unserializable reaches the wire),
 * anything else is wrapped as `{ value }`.
 */
export function toStructuredContent(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let plain: unknown;
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return undefined;
    plain = JSON.parse(json);
  } catch {
    // A cyclic or BigInt-carrying value: the text is still the whole answer.
    return undefined;
  }
  if (typeof plain === 'object' && plain !== null && !Array.isArray(plain)) return plain as Record<string, unknown>;
  return { value: plain };
}
