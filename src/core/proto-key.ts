/**
 * What the MCP wire renames an own `__proto__` key of `tools/call` arguments
 * to: the SDK's parsing would drop it without a word (it becomes the parsed
 * object's prototype, or nothing), so it is carried under this name, which
 * no schema shows, and argument validation reports it as `__proto__`, like
 * any other unknown argument.
 */
export const PROTO_KEY_STANDIN = '\u0000__proto__';
