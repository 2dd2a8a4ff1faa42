import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/server';
import type { ToolDescriptor } from '../../container/prompt-assembler.js';
import { RESULT_TEXT } from '../../core/result-text-schema.js';
import type { JsonSchema, ToolResult } from '../../core/tool-contract.js';
import type { SessionSpills } from './spill-resources.js';

/**
 * Value keys that hold a command's output. The text shows that output as
 * the model sees it, so `structuredContent` does not repeat them: it carries
 * the text instead, and every client (one that reads the text, the JSON, or
 * both) gets the same information, the output once per view.
 */
const OUTPUT_KEYS: ReadonlySet<string> = new Set(['stdout', 'stderr', 'output']);

/** Value keys that name a spill file: each becomes a `resource_link` beside the text. */
const SPILL_KEYS = ['stdoutSpillPath', 'stderrSpillPath', 'spillPaths'] as const;

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
    ...(tool.outputSchema !== undefined ? { outputSchema: structuredSchema(tool.outputSchema) as McpTool['outputSchema'] } : {}),
    ...(tool.annotations !== undefined || tool.title !== undefined
      ? { annotations: { ...(tool.title !== undefined ? { title: tool.title } : {}), ...tool.annotations } }
      : {}),
  };
}

/**
 * An output schema as `structuredContent` follows it: the output keys go,
 * `text` is required. The built-in tools' schemas are written that way
 * already; this keeps a plugin's schema true to what is sent.
 */
export function structuredSchema(schema: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, unknown>).filter(([key]) => !OUTPUT_KEYS.has(key)),
  );
  const required = ((schema.required ?? []) as string[]).filter((key) => !OUTPUT_KEYS.has(key));
  return {
    ...schema,
    type: 'object',
    properties: { ...properties, text: properties.text ?? RESULT_TEXT },
    required: required.includes('text') ? required : [...required, 'text'],
  };
}

/**
 * A host result as an MCP `tools/call` result: the exact model-visible text,
 * `isError`, and the structured view (`toStructuredContent`). Pending session
 * notices follow the text after exactly one blank line (one per line), so the
 * model reads them in the same turn as the result. With `spills`, each spill
 * file the value names follows the text as a `resource_link` that only this
 * session can read.
 */
export function toCallToolResult(result: ToolResult, notices: readonly string[] = [], spills?: SessionSpills): CallToolResult {
  const content: CallToolResult['content'] = result.content.map((block) => ({ type: 'text' as const, text: block.text }));
  const last = content[content.length - 1];
  if (notices.length > 0) {
    const tail = notices.join('\n');
    if (last?.type === 'text') last.text = `${last.text}${last.text.endsWith('\n') ? '\n' : '\n\n'}${tail}`;
    else content.push({ type: 'text', text: tail });
  }
  const text = content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  const structured = toStructuredContent(result.value, text);
  if (spills) for (const file of spillPathsOf(result.value)) content.push(spills.offer(file));
  return {
    content,
    ...(result.isError ? { isError: true } : {}),
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/**
 * MCP's `structuredContent` must be a JSON object: the value's fields (after
 * a JSON round trip, so nothing unserializable reaches the wire; a non-object
 * value is wrapped as `{ value }`), with null fields left out (a field that
 * does not apply is absent, the portable form) and without the output keys,
 * plus `text` (when given): the whole model-visible text. No value, no
 * structured content (errors carry none).
 */
export function toStructuredContent(value: unknown, text?: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const holder = value;
  let plain: unknown;
  try {
    // The output keys are dropped while serializing: the output is never copied only to be thrown away.
    const json = JSON.stringify(value, function (this: unknown, key: string, field: unknown) {
      if (this === holder && OUTPUT_KEYS.has(key)) return undefined;
      return withoutNullFields.call(this, key, field);
    });
    if (json === undefined) return undefined;
    plain = JSON.parse(json);
  } catch {
    // A cyclic or BigInt-carrying value: the text is still the whole answer.
    return undefined;
  }
  const fields = typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : { value: plain };
  return text === undefined ? fields : { ...fields, text };
}

/** JSON.stringify replacer: drops null object fields (array items stay, as JSON has no hole). */
function withoutNullFields(this: unknown, _key: string, field: unknown): unknown {
  return field === null && !Array.isArray(this) ? undefined : field;
}

/** The spill files a result value names, each once. */
function spillPathsOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const paths = SPILL_KEYS.flatMap((key) => {
    const field = record[key];
    return Array.isArray(field) ? field : [field];
  });
  return [...new Set(paths.filter((file): file is string => typeof file === 'string' && file !== ''))];
}
