// What each client offers the common script: the suite asserts the full case
// where the client can express it, and what the client does instead where not.
import type { NodeLine } from './fixture.js';

export type Transport = 'stdio' | 'http';

export interface ClientSpec {
  /** The name in test titles, e.g. "TypeScript SDK 1.32". */
  title: string;
  /** drivers/<driver>.mjs */
  driver: string;
  /** The npm package whose presence makes the client runnable. */
  packageName: string;
  node: NodeLine;
  transports: Transport[];
  /** The client can pin the 2026-07-28 era (SDK 2 `pin`, Inspector `--protocol-era modern`). */
  modernEra: boolean;
  /** tools/list as the client hands it on: the raw MCP tool (title, annotations, outputSchema) or only names. */
  listShape: 'raw' | 'names';
  /**
   * resets-timeout: a per-call progress callback and a request timeout progress resets;
   * callback: progress is reported but cannot keep a call alive past the client's timeout;
   * none: no progress reaches the caller.
   */
  progress: 'resets-timeout' | 'callback' | 'none';
  /** A structured-only mode (OpenAI Agents' useStructuredContent) whose JSON becomes the model's text. */
  structuredMode?: boolean;
  /** A per-call abort signal that sends notifications/cancelled. */
  cancel: boolean;
  /** Answers form-mode elicitation (the approval prompt). */
  elicitation: boolean;
  /** One long-lived client per run (false: one process per call, e.g. the Inspector CLI). */
  session: boolean;
}

/** The cases of the common script, in order (drivers/script.mjs). */
export function casesFor(spec: ClientSpec, transport: Transport): string[] {
  const cases = ['connect', 'list', 'echo', 'exit', 'long', 'heartbeat', 'background'];
  if (spec.structuredMode) cases.splice(4, 0, 'exitStructured');
  if (spec.cancel) cases.push('cancel');
  cases.push('approval');
  if (transport === 'http') cases.unshift('badToken');
  return cases;
}
